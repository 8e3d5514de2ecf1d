/**
 * The mirror tables read for browsing: a page of an entity's records searched by key or text (in
 * a scope of accounts), one record by its key and a document's lines (in one account: a key is
 * unique only within its account).
 */
import { sql, type Kysely } from 'kysely';
import { entityNamed, type EntityName } from '../catalog/index.js';
import type { Database } from './schema.js';
import { inScope, type AccountScope } from './scope.js';

type Row = Record<string, unknown>;

export interface RecordSearch {
  /** Columns to return (`deleted_at` and `account_id` come too). */
  columns: readonly string[];
  /** Text columns matched against `q` (case-insensitive, anywhere); the key matches a number. */
  searched: readonly string[];
  q: string;
  limit: number;
  offset: number;
}

/** Records of the entity in the scope matching the search, newest key first. */
export async function searchRecords(
  db: Kysely<Database>,
  scope: AccountScope,
  entity: EntityName,
  search: RecordSearch,
): Promise<Row[]> {
  const key = entityNamed(entity).key;
  const { q } = search;
  const matches =
    q === ''
      ? sql`true`
      : sql.join(
          [
            ...(/^\d{1,15}$/.test(q) ? [sql`${sql.ref(key)} = ${Number(q)}`] : []),
            ...search.searched.map((name) => sql`${sql.ref(name)} ilike ${`%${q.replace(/[\\%_]/g, '\\$&')}%`}`),
          ],
          sql` or `,
        );
  const { rows } = await sql<Row>`
    select ${sql.join(search.columns.map((name) => sql.ref(name)))}, deleted_at, account_id from ${sql.table(entity)}
     where ${inScope(scope)} and (${matches}) order by ${sql.ref(key)} desc, account_id
     limit ${search.limit} offset ${search.offset}`.execute(db);
  return rows;
}

/** One record of the account, deleted or not. */
export async function recordByKey(
  db: Kysely<Database>,
  accountId: number,
  entity: EntityName,
  id: number,
): Promise<Row | undefined> {
  const { rows } = await sql<Row>`
    select * from ${sql.table(entity)}
     where account_id = ${accountId} and ${sql.ref(entityNamed(entity).key)} = ${id}`.execute(db);
  return rows[0];
}

/** A document's lines in their order. */
export async function documentLines(
  db: Kysely<Database>,
  accountId: number,
  documentType: string,
  id: number,
): Promise<Row[]> {
  const { rows } = await sql<Row>`
    select * from document_lines
     where account_id = ${accountId} and document_type = ${documentType} and document_id = ${id}
     order by position`.execute(db);
  return rows;
}
