/**
 * Row-level security: a role confined to one account (by the two lines docs/schema.md gives) sees
 * only that account's rows in every table and every view that has `account_id` (found in the
 * schema, not listed here), cannot queue a job for another account, and a job it queues without
 * `account_id` is its account's. A role not confined keeps what its grants give it, and the owner
 * is not subject to the policies at all.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const run = randomBytes(4).toString('hex');
/** Roles made for this run (the server's roles are shared by every test file and run). */
const ROLE = `rls_books_${run}`;
const WIDE = `rls_reader_${run}`;
const TWO = `rls_both_${run}`;
const ids = { acme: 0, bolt: 0 };

const db = () => database.current.handle.db;

/**
 * A row of each table, for one account; `$a` is its id. The same keys in both accounts. A table
 * with `account_id` that has no entry here fails the test (add one).
 */
const ROWS: Record<string, string> = {
  clients: `insert into clients (clientnr, company, active, raw, account_id) values (1, 'Client of $a', false, '{}', $a)`,
  products: `insert into products (id, name, price, stock, stock_use, raw, account_id) values (1, 'Product', 10, 2, true, '{}', $a)`,
  quotations: `insert into quotations (id, clientnr, company, sent, date, datedue, totalintax, raw, account_id)
               values (1, 1, 'Client', true, current_date - 10, current_date + 20, 100, '{}', $a)`,
  saved_invoices: `insert into saved_invoices (id, clientnr, company, totalintax, raw, account_id) values (1, 1, 'Client', 50, '{}', $a)`,
  repeating_invoices: `insert into repeating_invoices (id, clientnr, company, totalintax, frequency, repeattype, initialdate,
                         nextsenddate, finalsenddate, raw, account_id)
                       values (1, 1, 'Client', 20, 'monthly', 'auto', current_date - 30, current_date + 3, current_date + 100, '{}', $a)`,
  // The second: VAT shifted to a German buyer (an intra-EU supply, in the Opgaaf ICP).
  invoices: `insert into invoices (id, invoicenr, clientnr, company, sent, duedate, totalintax, tax, open,
                                   country, taxnumber, tax_shifted, taxes, raw, account_id)
             values (1, '2026-0001', 1, 'Client', current_date - 40, current_date - 10, 121, 21, 121, null, null, null, null, '{}', $a),
                    (2, '2026-0002', 1, 'Client', current_date - 40, current_date - 10, 100, 0, 0, 50, 'DE123456789', true,
                     '{"tax1": {"rate": 0, "sum": "0.00", "sum_of": "100.00"}}', '{}', $a)`,
  countries: `insert into countries (id, name, raw, account_id) values (146, 'Nederland', '{}', $a), (50, 'Duitsland', '{}', $a)`,
  taxes: `insert into taxes (rate_key, percentage, type, raw, account_id) values (1, 21, 'H', '{}', $a)`,
  categories: `insert into categories (id, name, ledger, raw, account_id) values (1, 'Advies', 8000, '{}', $a)`,
  payments: `insert into payments (invoice_id, source, amount, account_id) values (1, 'observed', 10, $a)`,
  document_lines: `insert into document_lines (document_type, document_id, position, description, account_id)
                   values ('saved_invoice', 1, 1, 'Work', $a)`,
  sync_runs: `insert into sync_runs (kind, status, finished_at, account_id) values ('sync', 'succeeded', now(), $a)`,
  changes: `insert into changes (entity, entity_id, op, account_id) values ('clients', '1', 'insert', $a)`,
  entity_pulls: `insert into entity_pulls (entity, last_complete_at, account_id) values ('clients', now(), $a)`,
  rejected_values: `insert into rejected_values (entity, entity_id, field, action, value, reason, account_id)
                    values ('clients', '1', 'lastinvoice', 'rejected', '"2027-02-30"', 'not a date', $a)`,
  held_deletes: `insert into held_deletes (entity, entity_id, account_id) values ('clients', '1', $a)`,
  list_caps: `insert into list_caps (list, max_count, account_id) values ('clients', 250, $a)`,
  pull_cursors: `insert into pull_cursors (entity, pass_run_id, pass_started_at, table_was_empty, next_start,
    last_page_start, last_page_ids, seen_keys, account_id) values ('clients', 1, now(), false, 500, 0, '{}', '{}', $a)`,
  jobs: `insert into jobs (kind, payload, account_id) values ('delete_client', '{"clientnr": 1}', $a)`,
  invoice_pdfs: `insert into invoice_pdfs (invoice_id, pdf, size_bytes, sha256, account_id)
                 values (1, '\\x25504446', 4, 'ab', $a)`,
  // Made with each account by a trigger: nothing to insert.
  account_leases: `select $a`,
  // Made when a lock of the account is first taken.
  coordination_locks: `insert into coordination_locks (purpose, account_id) values ('sync', $a)`,
  // The confined role's own row is made by grant_account; the other account gets a role of its own.
  account_roles: `insert into account_roles (role_name, account_id) select '${WIDE}_unused', $a where $a <> $acme`,
  // Made by the triggers on changes and held_deletes above.
  events: `select $a`,
  webhook_subscriptions: `insert into webhook_subscriptions (url, secret, account_id) values ('https://example.com/$a', 'v1:sealed', $a)`,
  webhook_deliveries: `insert into webhook_deliveries (subscription_id, event_id, entity, record_id, account_id)
                       select id, 1, 'clients', '1', $a from webhook_subscriptions where account_id = $a`,
  webhook_attempts: `insert into webhook_attempts (delivery_id, duration_ms, account_id) values (1, 5, $a)`,
};

/** The views of one VAT country's return: only the accounts that file it have rows there. */
const ONE_COUNTRY: Record<string, 'acme' | 'bolt'> = { vat_return_nl: 'acme', vat_return_be: 'bolt' };

/** Every table and view of the schema with an `account_id` column. */
async function relationsWithAccount(): Promise<{ name: string; kind: string }[]> {
  const { rows } = await sql<{ name: string; kind: string }>`
    select c.table_name as name, t.table_type as kind
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = ${database.current.schema} and c.column_name = 'account_id'
     order by c.table_name`.execute(db());
  return rows;
}

/** The two lines of docs/schema.md's "Row-level security", for this schema and role. */
function documentedGrant(): string[] {
  const doc = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Row-level security'));
  const block = /```sql\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .trim()
    .split('\n')
    .map((line) => line.replaceAll('invoicing.', `${database.current.schema}.`).replaceAll('acme_books', ROLE));
}

/** A connection acting as `role` (SET ROLE, as a superuser may), its search_path the mirror's. */
async function as<T>(role: string, work: (connection: postgres.Sql) => Promise<T>): Promise<T> {
  const connection = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
  try {
    await connection.unsafe(`set role ${role}`);
    await connection.unsafe(`set search_path to ${database.current.schema}`);
    return await work(connection);
  } finally {
    await connection.end();
  }
}

async function accountsIn(connection: postgres.Sql, relation: string): Promise<number[]> {
  const rows = await connection.unsafe<{ account_id: number }[]>(
    `select distinct account_id from ${relation} order by account_id`,
  );
  return rows.map((row) => Number(row.account_id));
}

beforeAll(async () => {
  for (const name of ['acme', 'bolt'] as const) {
    const { id } = await db().insertInto('accounts').values({ name }).returning('id').executeTakeFirstOrThrow();
    ids[name] = id;
  }
  const lines = documentedGrant();
  expect(lines).toHaveLength(2);
  for (const line of lines) await sql.raw(line).execute(db());
  // Bolt files the Belgian VAT return, acme the Dutch one (see ONE_COUNTRY).
  await sql`update accounts set vat_country = 'BE' where id = ${ids.bolt}`.execute(db());
  for (const id of [ids.acme, ids.bolt])
    for (const statement of Object.values(ROWS))
      await sql.raw(statement.replaceAll('$acme', String(ids.acme)).replaceAll('$a', String(id))).execute(db());
});

afterAll(async () => {
  const admin = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
  try {
    for (const role of [ROLE, WIDE, TWO]) {
      const [found] = await admin`select 1 from pg_roles where rolname = ${role}`;
      if (!found) continue;
      await admin.unsafe(`drop owned by ${role}`);
      await admin.unsafe(`drop role ${role}`);
    }
  } finally {
    await admin.end();
  }
});

describe('a role confined to one account', () => {
  it('every table and view with account_id holds rows of both accounts (seen by the owner)', async () => {
    // (The test database's own account, `default`, has no rows but the ones made with every
    // account: its lease row, and its line in accounts_overview.)
    const relations = await relationsWithAccount();
    expect(
      relations
        .filter((r) => r.kind === 'BASE TABLE')
        .map((r) => r.name)
        .sort(),
    ).toEqual(Object.keys(ROWS).sort());
    expect(relations.filter((r) => r.kind === 'VIEW').length).toBeGreaterThanOrEqual(20);
    for (const { name } of relations) {
      const { rows } = await sql<{ account_id: number }>`
        select distinct account_id from ${sql.table(name)} order by account_id`.execute(db());
      const expected =
        name === 'accounts_overview' || name === 'account_leases'
          ? [database.current.accountId, ids.acme, ids.bolt]
          : name in ONE_COUNTRY
            ? [ids[ONE_COUNTRY[name]!]]
            : [ids.acme, ids.bolt];
      expect(
        rows.map((row) => row.account_id),
        name,
      ).toEqual(expected);
    }
  });

  it('sees only its account’s rows in every table and every view', async () => {
    const relations = await relationsWithAccount();
    await as(ROLE, async (connection) => {
      for (const { name } of relations)
        expect(await accountsIn(connection, name), name).toEqual(
          name in ONE_COUNTRY && ONE_COUNTRY[name] !== 'acme' ? [] : [ids.acme],
        );
      const accounts = await connection`select name from accounts`;
      expect(accounts.map((row) => row.name)).toEqual(['acme']);
      const [visible] = await connection`select visible_accounts(current_user) as ids`;
      expect(visible!.ids).toEqual([ids.acme]);
    });
  });

  it('cannot queue a job for another account, nor move one there where it may update jobs', async () => {
    await as(ROLE, async (connection) => {
      await expect(
        connection`insert into jobs (kind, payload, account_id) values ('delete_client', '{"clientnr": 1}', ${ids.bolt})`,
      ).rejects.toThrow(/row-level security/);
      // grant_account gives no UPDATE; given one, the policy still checks the new row.
      await expect(connection`update jobs set account_id = ${ids.bolt}`).rejects.toThrow(/permission denied/);
    });
    await sql.raw(`grant update on jobs to ${ROLE}`).execute(db());
    try {
      await as(ROLE, async (connection) => {
        await expect(connection`update jobs set account_id = ${ids.bolt}`).rejects.toThrow(/row-level security/);
        // Rows of the other account are not there to update.
        const updated = await connection`update jobs set max_attempts = 9 where account_id = ${ids.bolt}`;
        expect(updated.count).toBe(0);
      });
    } finally {
      await sql.raw(`revoke update on jobs from ${ROLE}`).execute(db());
    }
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from jobs where account_id = ${ids.bolt}`.execute(db());
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('queues a job without account_id for its own account', async () => {
    const [job] = await as(
      ROLE,
      (connection) =>
        connection`insert into jobs (kind, payload) values ('delete_client', '{"clientnr": 1}') returning account_id`,
    );
    expect(job!.account_id).toBe(ids.acme);
  });

  it('a role confined to two accounts sees both, and must name the account of a job', async () => {
    await sql.raw(`create role ${TWO}`).execute(db());
    await sql`select grant_account('acme', ${TWO}), grant_account('bolt', ${TWO})`.execute(db());
    await as(TWO, async (connection) => {
      expect(await accountsIn(connection, 'client_overview')).toEqual([ids.acme, ids.bolt]);
      await expect(
        connection`insert into jobs (kind, payload) values ('delete_client', '{"clientnr": 1}')`,
      ).rejects.toThrow(/jobs.account_id is required: 2 accounts exist/);
    });
  });

  it('a role not named in account_roles keeps what its grants give it: every account', async () => {
    const schema = database.current.schema;
    await sql.raw(`create role ${WIDE}`).execute(db());
    await sql.raw(`grant usage on schema ${schema} to ${WIDE}`).execute(db());
    await sql.raw(`grant select on all tables in schema ${schema} to ${WIDE}`).execute(db());
    await as(WIDE, async (connection) => {
      for (const name of ['clients', 'jobs', 'client_overview'])
        expect(await accountsIn(connection, name), name).toEqual([ids.acme, ids.bolt]);
      const accounts = await connection`select name from accounts order by name`;
      expect(accounts.map((row) => row.name)).toEqual(['acme', 'bolt', 'default']);
    });
  });

  it('cannot widen its own access', async () => {
    await as(ROLE, async (connection) => {
      // The other account is not even there to name.
      await expect(connection`select grant_account('bolt', current_user)`).rejects.toThrow(/no account named bolt/);
      await expect(
        connection`insert into account_roles (role_name, account_id) values (current_user, ${ids.bolt})`,
      ).rejects.toThrow(/permission denied/);
      expect(await accountsIn(connection, 'clients')).toEqual([ids.acme]);
    });
  });

  it('grant_account refuses an unknown account, a missing role, and a role that bypasses the policies', async () => {
    await expect(sql`select grant_account('nope', ${ROLE})`.execute(db())).rejects.toThrow(/no account named nope/);
    await expect(sql`select grant_account('acme', ${`${ROLE}_missing`})`.execute(db())).rejects.toThrow(
      /no role named/,
    );
    const { rows } = await sql<{ owner: string }>`select current_user as owner`.execute(db());
    await expect(sql`select grant_account('acme', ${rows[0]!.owner})`.execute(db())).rejects.toThrow(
      /cannot be confined/,
    );
  });
});
