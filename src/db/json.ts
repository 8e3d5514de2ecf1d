import { sql, type RawBuilder } from 'kysely';

/**
 * A value to store in a jsonb column. postgres.js would serialize a string parameter typed jsonb
 * a second time (a JSON string instead of an object), so the text goes in as text and Postgres
 * casts it. Works the same on PGlite.
 */
export function jsonb(value: unknown): RawBuilder<string> {
  return sql<string>`cast(${JSON.stringify(value ?? null)} as text)::jsonb`;
}
