/**
 * Advisory-lock keys. A key is derived from the mirror schema and a purpose, so two mirrors in
 * one database (say, two test runs) never block each other, while every process working on the
 * same mirror shares the same locks.
 */
import { sql, type RawBuilder } from 'kysely';

export type LockPurpose = 'migrate' | 'sync' | 'jobs' | 'service';

/**
 * A bigint key computed by Postgres: `hashtextextended('invoice-mirror:<schema>:<purpose>[:<account>]', 0)`.
 * Pulls, jobs and calls to the service are locked per account: one account's pull never waits
 * for another's.
 */
export function lockKey(schema: string, purpose: LockPurpose, accountId?: number): RawBuilder<bigint> {
  const account = accountId === undefined ? '' : `:${accountId}`;
  return sql<bigint>`hashtextextended(${`invoice-mirror:${schema}:${purpose}${account}`}, 0)`;
}
