/**
 * One row per account for `accounts list` and `accounts show`: the read model's summary of each
 * account (src/db/summaries.ts), and how the command shows it.
 */
import type { Kysely } from 'kysely';
import { accountSummaries, oneAccount, type AccountSummary } from '../db/index.js';
import type { Database } from '../db/schema.js';
import { plural, relativeTime } from '../format.js';

import { FAILED_JOBS_DAYS } from '../db/summaries.js';

export { FAILED_JOBS_DAYS };
export type AccountOverview = AccountSummary;

/** Per account, in name order (of one account with `onlyId`): the read model's summaries. */
export function accountsOverview(db: Kysely<Database>, onlyId?: number): Promise<AccountOverview[]> {
  return accountSummaries(db, onlyId === undefined ? 'all' : oneAccount(onlyId));
}

/** `12 min`, `3 h`, `2 d`: how long ago, without the "ago" (the column says it). */
export function ageText(seconds: number | null): string {
  if (seconds === null) return '';
  return relativeTime(new Date(0), Math.max(0, seconds) * 1000).replace(/ ago$/, '');
}

/** `paused by a person on …` says its state already; `refused: the service answered 401` does not. */
function stateProblem({ state, state_reason: reason }: AccountOverview): string {
  if (!reason) return state;
  return reason.startsWith(state) ? reason : `${state}: ${reason}`;
}

/** What needs a person, as one line: the state's reason first, then counts of things to look at. */
export function problemsText(row: AccountOverview): string {
  const problems: string[] = [];
  if (row.state !== 'active') problems.push(stateProblem(row));
  if (row.parked_until)
    problems.push(`parked until ${row.parked_until.toISOString()} (${row.parked_reason ?? 'quota spent'})`);
  if (row.failing_lists.length > 0) problems.push(`failing lists: ${row.failing_lists.join(', ')}`);
  if (row.pulls_under_way.length > 0) problems.push(`pulling in slices (${row.pulls_under_way.join(', ')})`);
  else if (row.last_pull_status === 'failed') problems.push('last pull failed');
  if (row.held_deletes > 0) problems.push(plural(row.held_deletes, 'held delete'));
  if (row.rejected_values > 0) problems.push(plural(row.rejected_values, 'rejected value'));
  if (row.failed_jobs > 0) problems.push(`${plural(row.failed_jobs, 'failed job')} (${FAILED_JOBS_DAYS} d)`);
  if (row.interrupted_jobs > 0) problems.push(plural(row.interrupted_jobs, 'interrupted job'));
  return problems.join('; ');
}

/**
 * The table a person reads: name, state, last complete sync, its age against the account's
 * freshness target (its own, or `defaultTargetSeconds`: SYNC_INTERVAL), queue, problems.
 */
export function overviewTableRows(
  rows: readonly AccountOverview[],
  defaultTargetSeconds: number,
): Record<string, unknown>[] {
  return rows.map((row) => ({
    name: row.name,
    state: row.state,
    last_complete_sync: row.last_complete_sync_at,
    age: ageText(row.sync_age_seconds),
    target: ageText(row.sync_interval_seconds ?? defaultTargetSeconds),
    queue: row.queued_jobs,
    problems: problemsText(row),
  }));
}

/** Every field, for programs (CSV, JSON): the counts as numbers, the problems line too. */
export function overviewDataRows(rows: readonly AccountOverview[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const { id, ...fields } = row;
    return { ...fields, problems: problemsText(row) };
  });
}
