/**
 * `accounts import FILE`: a CSV file of accounts (header `name,api_url,api_user,api_key`), read
 * whole and checked line by line before anything is written, then added or updated in one
 * transaction. Parsed by csv-parse (quoted fields, commas and line breaks inside them, a byte order
 * mark), whose errors are reworded here from their codes: its own messages may quote a field.
 */
import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { CsvError, parse } from 'csv-parse/sync';
import type { Database } from '../db/schema.js';
import { UsageError } from '../errors.js';
import { checkApiUrl, checkApiUser, registerKey } from './input.js';
import { type AccountInput, saveAccount } from './manage.js';
import { checkAccountName } from './store.js';

export const IMPORT_HEADER = ['name', 'api_url', 'api_user', 'api_key'] as const;

export interface ImportRow extends AccountInput {
  /** The line of the file the account ends on. */
  line: number;
}

type Parsed = { record: string[]; info: { lines: number } };

function parseCsv(file: string, text: string): Parsed[] {
  try {
    // Lines of another length are parsed, then refused in line order with the other checks.
    const options = { bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, info: true };
    return parse(text, options) as unknown as Parsed[];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = (error as CsvError & { lines?: number }).lines;
    const why =
      error.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quoted field is not closed' : `is not valid CSV (${error.code})`;
    throw new UsageError(`${file} line ${line ?? '?'}: ${why}`);
  }
}

/** One line's account, checked; a UsageError naming the column otherwise. */
function rowOf(record: string[]): AccountInput {
  if (record.length !== IMPORT_HEADER.length)
    throw new UsageError(
      `has ${record.length} fields, the header ${IMPORT_HEADER.length} (${IMPORT_HEADER.join(',')})`,
    );
  const [name, apiUrl, apiUser, apiKey] = record;
  if (apiKey === '') throw new UsageError('api_key: is empty');
  return {
    name: checkAccountName(name!),
    apiUrl: apiUrl === '' ? null : checkApiUrl(apiUrl!, 'api_url'),
    apiUser: checkApiUser(apiUser!, 'api_user'),
    apiKey: apiKey!,
  };
}

/** Every account of the file, or a UsageError `FILE line N: …` for the first bad line. */
export function readAccountsFile(file: string): ImportRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const [header, ...records] = parseCsv(file, text);
  if (header?.record.join(',') !== IMPORT_HEADER.join(','))
    throw new UsageError(`${file} line 1: the header must be exactly ${IMPORT_HEADER.join(',')}`);
  // Before any check can quote a field: a key put in the wrong column stays hidden too.
  for (const { record } of records) if (record[3]) registerKey(record[3], record[2]);
  const rows: ImportRow[] = [];
  for (const { record, info } of records) {
    try {
      const row = rowOf(record);
      const earlier = rows.find((other) => other.name === row.name);
      if (earlier) throw new UsageError(`account ${row.name} is on line ${earlier.line} already`);
      rows.push({ ...row, line: info.lines });
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(`${file} line ${info.lines}: ${error.message}`);
      throw error;
    }
  }
  return rows;
}

/**
 * Adds or updates every account, all or nothing (`settingUrl`: INVOICING_API_URL, for an empty
 * api_url). `movedAway` names the updated accounts whose new address is another service than
 * their rows come from (served again after `accounts rebind`).
 */
export async function importAccounts(
  db: Kysely<Database>,
  rows: readonly ImportRow[],
  secret: string,
  settingUrl: string,
): Promise<{ added: number; updated: number; movedAway: { name: string; bound: string }[] }> {
  return db.transaction().execute(async (trx) => {
    const counts = { added: 0, updated: 0, movedAway: [] as { name: string; bound: string }[] };
    for (const row of rows) {
      const saved = await saveAccount(trx, row, secret, settingUrl);
      counts[saved.outcome]++;
      if (saved.boundElsewhere !== undefined) counts.movedAway.push({ name: row.name, bound: saved.boundElsewhere });
    }
    return counts;
  });
}
