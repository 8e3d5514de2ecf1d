// The write floor's tools, shared by bench/perf.mjs and bench/write-floor.mjs: every row a schema
// holds, read out by COPY (into memory), and loaded by COPY into a fresh schema of the same
// migrations whose tables' own triggers are off (foreign keys, the account checks that stand for
// them, checks and indexes stay on).
import { once } from 'node:events';
import net from 'node:net';

/** The tables of a schema, referenced ones first (foreign keys are on while they load). */
export async function tablesInLoadOrder(sql, schema) {
  const tables = await sql`
    select c.relname as name,
           coalesce(array_agg(distinct r.relname) filter (where r.relname is not null and r.relname <> c.relname), '{}') as needs
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      left join pg_constraint k on k.conrelid = c.oid and k.contype = 'f'
      left join pg_class r on r.oid = k.confrelid
     where n.nspname = ${schema} and c.relkind in ('r', 'p') and not c.relispartition
     group by c.relname`;
  const ordered = [];
  const placed = new Set();
  while (ordered.length < tables.length) {
    const next = tables.filter((t) => !placed.has(t.name) && t.needs.every((need) => placed.has(need)));
    if (next.length === 0) throw new Error('a circle of foreign keys');
    for (const t of next) {
      placed.add(t.name);
      ordered.push(t.name);
    }
  }
  return ordered;
}

/**
 * COPY text of a query, through a connection of its own that is closed afterwards: postgres.js can
 * leave a connection's socket paused after a COPY TO whose stream filled (porsager/postgres#499,
 * fix proposed in #1016), and the next query on it would hang.
 */
async function copyOut(postgres, url, query) {
  const own = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const chunks = [];
    for await (const chunk of await own.unsafe(`copy (${query}) to stdout`).readable()) chunks.push(chunk);
    return chunks;
  } finally {
    await own.end({ timeout: 0 });
  }
}

/**
 * Every row of `schema` that COPY can write (generated columns left out), table by table, in load
 * order.
 */
export async function dumpRows(sql, postgres, url, schema) {
  const loads = [];
  for (const table of await tablesInLoadOrder(sql, schema)) {
    const columns = await sql`
      select a.attname from pg_attribute a
       where a.attrelid = ${`${schema}.${table}`}::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
       order by a.attnum`;
    const names = columns.map((c) => c.attname);
    const list = names.map((name) => `"${name}"`).join(', ');
    const chunks = await copyOut(postgres, url, `select ${list} from ${schema}."${table}"`);
    if (chunks.length === 0) continue;
    loads.push({ table, list, chunks });
  }
  return loads;
}

/** The big tables' account checks (migration 0023's triggers), which stand for their foreign keys. */
export function accountChecks(sql, schema) {
  return sql`
    select c.relname as table, t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
     join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = ${schema} and t.tgname in ('account_rows_inserted', 'account_rows_updated')`;
}

/** A fresh schema of the migrations, the loaded tables' own triggers off and what the migrations seeded removed. */
export async function freshSchema(sql, url, schema, loads) {
  const { openDatabase, migrate } = await import('../dist/src/db/index.js');
  await sql.unsafe(`drop schema if exists ${schema} cascade`);
  const handle = await openDatabase({ databaseUrl: url, embeddedDbDir: '', schema, poolSize: 1 });
  await migrate(handle.db, schema);
  await handle.close();
  for (const { table } of loads) await sql.unsafe(`alter table ${schema}."${table}" disable trigger user`);
  // The account checks are the account foreign keys of the big tables (migration 0023): kept on.
  for (const check of await accountChecks(sql, schema))
    await sql.unsafe(`alter table ${schema}."${check.table}" enable trigger ${check.name}`);
  for (const { table } of [...loads].reverse()) await sql.unsafe(`delete from ${schema}."${table}"`);
}

/**
 * Loads the rows by COPY, table after table, through a connection of its own with Nagle's
 * algorithm off: postgres.js leaves it on, and the small CopyDone written after a table's data
 * then waits for the server's delayed ACK (about 40 ms a table, and as much again on the next
 * query: 1.6 s of a 3.5 s floor in 19 tables), which is the client's wait, not PostgreSQL's work.
 * The mirror itself does not use COPY.
 */
export async function loadRows(postgres, url, schema, loads) {
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    socket: async ({ host, port }) => {
      const socket = net.connect({ host: host[0], port: port[0], noDelay: true });
      await once(socket, 'connect');
      return socket;
    },
  });
  try {
    for (const load of loads) {
      const writable = await sql.unsafe(`copy ${schema}."${load.table}" (${load.list}) from stdin`).writable();
      await new Promise((resolve, reject) => {
        writable.on('error', reject);
        writable.on('finish', resolve);
        for (const chunk of load.chunks) writable.write(chunk);
        writable.end();
      });
    }
  } finally {
    await sql.end();
  }
}
