/**
 * A mirror account against its sandbox account, read from the sandbox's own store (not through
 * the project's views or queries): the same live keys per entity, and each record as the service
 * holds it.
 */
import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/index.js';
import type { SandboxAccount, SandboxEntity } from '../../src/sandbox/index.js';

const ENTITIES: SandboxEntity[] = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'];
const KEY: Record<string, string> = { clients: 'clientnr' };

/** The service's records of the account, by table: key → record. */
function upstreamOf(account: SandboxAccount): Record<string, Record<string, unknown>> {
  const { store } = account;
  const out: Record<string, Record<string, unknown>> = {};
  for (const entity of ENTITIES) {
    const key = KEY[entity] ?? 'id';
    out[entity] = Object.fromEntries(store.list(entity).map((record) => [String(record[key]), record]));
  }
  out.invoices = Object.fromEntries(store.sentInvoices().map((record) => [String(record.id), record]));
  return out;
}

/** The mirror's live rows of the account, by table: key → raw record. */
async function mirrorOf(db: Kysely<Database>, accountId: number): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const table of [...ENTITIES, 'invoices']) {
    const key = KEY[table] ?? 'id';
    const { rows } = await sql<{ k: number; raw: Record<string, unknown> }>`
      select ${sql.ref(key)} as k, raw from ${sql.table(table)} where account_id = ${accountId} and deleted_at is null`.execute(
      db,
    );
    out[table] = Object.fromEntries(rows.map((row) => [String(row.k), row.raw]));
  }
  return out;
}

/** Expects the mirror's rows of `accountId` to be exactly the sandbox account's records. */
export async function expectMirrorEquals(
  db: Kysely<Database>,
  accountId: number,
  account: SandboxAccount,
  label: string,
): Promise<void> {
  const mirror = await mirrorOf(db, accountId);
  const upstream = upstreamOf(account);
  for (const [table, records] of Object.entries(upstream)) {
    expect(Object.keys(mirror[table]!).sort(), `${table} of ${label}`).toEqual(Object.keys(records).sort());
    for (const [key, record] of Object.entries(records))
      expect(mirror[table]![key], `${table} ${key} of ${label}`).toMatchObject(JSON.parse(JSON.stringify(record)));
  }
}
