/**
 * From the records of an answer to the page the writer sends: one copy per key, then the records
 * that need writing staged and encoded (see page-text.ts).
 */
import type { Logger } from 'pino';
import type { ValueIssue } from '../api/index.js';
import {
  recordKey,
  toStagedRow,
  type EntityDefinition,
  type ReadEntityRecord,
  type RecordIdentity,
  type StagedRow,
} from './entities.js';
import { encodePage, type PageText } from './page-text.js';
import { skippedRecord } from './rejected.js';

/**
 * One record per key: a record listed twice in one answer is stored once (the later copy, as the
 * service would have it last); when the copies differ, that is reported, since either may be the
 * true one. The only place duplicates are removed: a page's text never holds a key twice.
 */
export function uniqueRecords(
  definition: EntityDefinition,
  records: ReadEntityRecord[],
  issues: ValueIssue[],
  log: Logger,
): ReadEntityRecord[] {
  const byKey = new Map<number, ReadEntityRecord>();
  for (const read of records) {
    const key = recordKey(definition, read);
    const earlier = byKey.get(key);
    if (earlier && earlier.rawText !== read.rawText) {
      const message = 'listed twice in one answer with different content; the later copy is stored';
      issues.push(skippedRecord(definition.name, String(key), '(duplicate)', message, earlier.rawText));
      log.warn({ entity: definition.name, id: key }, message);
    }
    byKey.set(key, read);
  }
  return byKey.size === records.length ? records : [...byKey.values()];
}

/**
 * The page text of the records that need writing (`needed` names them; null: all). Records are
 * mapped to rows and encoded in one go, so that only the text is held while the page is written:
 * the parsed records become garbage at once, and the garbage collector reclaims them young
 * instead of copying them into the old generation.
 */
export function stagePage(
  definition: EntityDefinition,
  records: readonly ReadEntityRecord[],
  identities: readonly RecordIdentity[],
  needed: ReadonlySet<number> | null,
): PageText {
  const rows: StagedRow[] = [];
  for (let i = 0; i < records.length; i++) {
    if (!needed || needed.has(identities[i]!.key)) rows.push(toStagedRow(definition, records[i]!, identities[i]));
  }
  return encodePage(definition, rows);
}
