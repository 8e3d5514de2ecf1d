/**
 * The one read a command makes before deciding to migrate (AUTO_MIGRATE): current only when every
 * migration is applied and every repeatable's recorded hash is its own.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate, schemaIsCurrent } from '../../src/db/index.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

describe('schemaIsCurrent', () => {
  it('is true on a migrated schema, false where a migration or a repeatable is missing or stale, or no schema is', async () => {
    const { db } = database.current.handle;
    const { schema } = database.current;
    expect(await schemaIsCurrent(db, schema)).toBe(true);
    expect(await schemaIsCurrent(db, `${schema}_never_made`)).toBe(false);

    await sql`update schema_repeatables set hash = 'stale' where name = 'report_views'`.execute(db);
    expect(await schemaIsCurrent(db, schema)).toBe(false);
    expect(await migrate(db, schema)).toEqual(['report_views']);
    expect(await schemaIsCurrent(db, schema)).toBe(true);

    const [last] = (await sql<{ name: string }>`select max(name) as name from schema_migrations`.execute(db)).rows;
    await sql`delete from schema_migrations where name = ${last!.name}`.execute(db);
    expect(await schemaIsCurrent(db, schema)).toBe(false);
    await sql`insert into schema_migrations (name) values (${last!.name})`.execute(db);
    expect(await schemaIsCurrent(db, schema)).toBe(true);
  });
});
