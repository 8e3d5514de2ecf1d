/**
 * When a call of unknown outcome may be judged. The service finishes what it was asked after the
 * caller gave up (service-notes.md: a send keeps running, and removes its saved invoices only at
 * the end), so for a while after such a call nothing the service shows proves it did not happen.
 * Only after the settle period (`UNKNOWN_OUTCOME_SETTLE_MS`, and never less than the call's own
 * deadline) may a check conclude "it did not happen", and then only from positive evidence.
 *
 * Times are the database's: a call recorded by one process may be judged by another, and every
 * process on the mirror shares the database's clock, whatever its own clock did meanwhile.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import type { AccountMirror } from './mirror.js';

/** The database's clock now, as an ISO timestamp (what a call records as its start). */
export async function databaseNow(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ now: Date | string }>`select clock_timestamp() as now`.execute(db);
  return new Date(rows[0]!.now).toISOString();
}

/** Milliseconds from `startedAt` to now, on the database's clock. */
export async function msSince(db: Kysely<Database>, startedAt: string): Promise<number> {
  const { rows } = await sql<{ ms: number | string }>`
    select extract(epoch from clock_timestamp() - ${startedAt}::timestamptz) * 1000 as ms`.execute(db);
  return Number(rows[0]!.ms);
}

/** Where a call of unknown outcome stands: settled (it may be judged) or until when it is not. */
export interface Settling {
  settled: boolean;
  /** When the settle period ends (ISO, the database's clock). */
  until: string;
  /** The settle period. */
  ms: number;
}

export async function settling(db: Kysely<Database>, startedAt: string, settleMs: number): Promise<Settling> {
  const until = new Date(Date.parse(startedAt) + settleMs).toISOString();
  return { settled: (await msSince(db, startedAt)) >= settleMs, until, ms: settleMs };
}

/** The words a message uses for a call still settling: until when, and what a retry then does. */
export function stillWorking(settle: Pick<Settling, 'until' | 'ms'>): string {
  return `the service may still be carrying it out until ${settle.until} (settle period ${minutes(settle.ms)}); a retry after then checks the service`;
}

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.ceil(ms / 1000)} s`;
}

/**
 * The day before a call, on whichever calendar is behind: ours, or the service's as the latest
 * send date in the account's mirror shows it (the sandbox's calendar, say, is fixed in the past;
 * each account is its own service, with its own calendar).
 */
export async function dayBeforeCall(mirror: AccountMirror, startedAt: string): Promise<string> {
  const { rows } = await sql<{ since: string }>`
    select (least((select max(sent) from invoices where account_id = ${mirror.accountId}),
                  ${startedAt}::timestamptz::date) - 1)::text as since`.execute(mirror.db);
  return rows[0]!.since;
}
