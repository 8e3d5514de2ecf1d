/**
 * `accounts import FILE`: a CSV file of accounts (header `name,api_url,api_user,api_key`), read
 * whole and checked line by line before anything is written, then added or updated in one
 * transaction. Parsed by csv-parse (quoted fields, commas and line breaks inside them, a byte order
 * mark), whose errors are reworded here from their codes: its own messages may quote a field.
 */
import { readFileSync, statSync } from 'node:fs';
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

/** A file of API keys must be the owner's alone (POSIX modes; Windows has none to check). */
export function checkPrivateFile(file: string, platform: NodeJS.Platform = process.platform): void {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (error) {
    throw new UsageError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (platform !== 'win32' && (mode & 0o077) !== 0)
    throw new UsageError(
      `${file}: others may read it (mode ${(mode & 0o777).toString(8)}) and it holds API keys; chmod 600 ${file} first`,
    );
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

/** Adds or updates every account, all or nothing. */
export async function importAccounts(
  db: Kysely<Database>,
  rows: readonly ImportRow[],
  secret: string,
): Promise<{ added: number; updated: number }> {
  return db.transaction().execute(async (trx) => {
    const counts = { added: 0, updated: 0 };
    for (const row of rows) counts[(await saveAccount(trx, row, secret)).outcome]++;
    return counts;
  });
}
