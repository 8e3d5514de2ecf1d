/**
 * `accounts remove NAME --purge`: every row of one account, in every table that has `account_id`,
 * then the account itself, in one transaction. The tables are found in the schema when it runs,
 * not listed here, so a table a later migration adds is purged too.
 */
import { resolveAccounts } from './resolve.js';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Account } from './store.js';

export interface PurgePlan {
  account: Account;
  /** Rows of the account per table, in the order they are deleted. */
  tables: { table: string; rows: number }[];
}

/**
 * The tables of the mirror schema with an `account_id` column (views left out), ordered so that a
 * table is emptied before any table it references: foreign keys between them would otherwise
 * refuse the deletes. A table hash-partitioned by account (scripts/partition-by-account.mjs) is
 * one table: its partitions are left out, their rows are its own.
 */
export async function accountTables(db: Kysely<Database>): Promise<string[]> {
  const { rows: tables } = await sql<{ name: string }>`
    select c.relname as name
      from pg_class c
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
       and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped)
     order by c.relname`.execute(db);
  const { rows: references } = await sql<{ child: string; parent: string }>`
    select cl.relname as child, ref.relname as parent
      from pg_constraint co join pg_class cl on cl.oid = co.conrelid join pg_class ref on ref.oid = co.confrelid
     where co.contype = 'f' and cl.relnamespace = current_schema()::regnamespace and cl.oid <> ref.oid`.execute(db);
  const left = tables.map((table) => table.name);
  const ordered: string[] = [];
  while (left.length > 0) {
    // A table no remaining table refers to can go now; a cycle (none exists) is taken as it comes.
    const free = left.find((table) => !references.some((r) => r.parent === table && left.includes(r.child)));
    const next = free ?? left[0]!;
    ordered.push(next);
    left.splice(left.indexOf(next), 1);
  }
  return ordered;
}

/**
 * Deletes the account and all its rows. `announce` hears what will be deleted before anything is
 * (the command prints it). The account's row is locked first: a pull or job of the account that
 * writes meanwhile waits, then fails on the missing account instead of leaving rows behind.
 */
export async function purgeAccount(
  db: Kysely<Database>,
  name: string,
  announce: (plan: PurgePlan) => void = () => undefined,
): Promise<PurgePlan> {
  return db.transaction().execute(async (trx) => {
    const account = await resolveAccounts(trx, name, { one: true, label: 'account' });
    await trx.selectFrom('accounts').select('id').where('id', '=', account.id).forUpdate().execute();
    const tables: PurgePlan['tables'] = [];
    for (const table of await accountTables(trx)) {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from ${sql.table(table)} where account_id = ${account.id}`.execute(trx);
      tables.push({ table, rows: Number(rows[0]!.n) });
    }
    const plan = { account, tables };
    announce(plan);
    for (const { table, rows } of tables)
      if (rows > 0) await sql`delete from ${sql.table(table)} where account_id = ${account.id}`.execute(trx);
    await trx.deleteFrom('accounts').where('id', '=', account.id).execute();
    return plan;
  });
}
