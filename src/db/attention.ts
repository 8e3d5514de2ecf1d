/**
 * What needs a person's attention, read from the bookkeeping tables: held deletes, values not
 * stored as sent, a failed or stale pull, interrupted jobs, a spent rate limit; each with what to
 * do about it. `status`, the console's overview, `/healthz`, `/readyz` and `/metrics` all render
 * this one list, so a new item is added here and shows everywhere.
 */
import type { Kysely } from 'kysely';
import { heldDeletes, heldDeletesAdvice } from './held-deletes.js';
import { countRejectedValues } from './rejected-values.js';
import { lastFinishedPull, lastSucceededPull, rateLimitSpentAt } from './runs.js';
import type { Database } from './schema.js';
import { countJobsByStatus } from './summaries.js';

export type AttentionKind =
  | 'held_deletes'
  | 'rejected_values'
  | 'failed_pull'
  | 'stale_pull'
  | 'no_pull'
  | 'stale_mirror'
  | 'no_success'
  | 'interrupted_jobs'
  | 'rate_limit_spent';

export interface AttentionItem {
  kind: AttentionKind;
  /** What it fails: the daemon's health (`/healthz` 503), its readiness (`/readyz` 503), or neither (a warning). */
  fails: 'health' | 'readiness' | null;
  /** The entity it concerns, if one. */
  entity: string | null;
  /** How many things (deletes, values, jobs); 1 for a state. */
  count: number;
  /** What is wrong, one line. */
  text: string;
  /** What to do about it. */
  remedy: string;
}

export interface AttentionOptions {
  /** The sync schedule's period: a pull older than three is stale. Without it ages are not judged. */
  periodMs?: number;
  /**
   * How long the daemon asking has been up (monotonic ms): a mirror with no pull is judged only
   * after three periods of it. Without it (not a daemon) that is not judged.
   */
  upForMs?: number;
}

const CHECK_THE_DAEMON =
  "check that the daemon runs and reaches the service (its log says why not), or run 'invoice-mirror sync'";

/** Everything that needs attention, problems of health and readiness first, then warnings. */
export async function needsAttention(db: Kysely<Database>, options: AttentionOptions = {}): Promise<AttentionItem[]> {
  const groups = await Promise.all([
    pullItems(db, options),
    heldItems(db),
    rejectedItems(db),
    jobItems(db),
    rateLimitItems(db),
  ]);
  return groups.flat();
}

/** One line with the remedy, for a warning read by a person. */
export function attentionLine(item: AttentionItem): string {
  return `${item.text}; ${item.remedy}`;
}

const item = (
  kind: AttentionKind,
  fails: AttentionItem['fails'],
  text: string,
  remedy: string,
  count = 1,
  entity: string | null = null,
): AttentionItem => ({
  kind,
  fails,
  entity,
  count,
  text,
  remedy,
});

/** The last pull failed or is stale (/healthz); the last success is stale (/readyz). */
async function pullItems(db: Kysely<Database>, options: AttentionOptions): Promise<AttentionItem[]> {
  const items: AttentionItem[] = [];
  const [last, success] = await Promise.all([lastFinishedPull(db), lastSucceededPull(db)]);
  if (last?.status === 'failed')
    items.push(
      item(
        'failed_pull',
        'health',
        `the last sync (run ${last.id}) failed`,
        "its error is in 'invoice-mirror status'; the next sync tries again",
      ),
    );
  if (options.periodMs === undefined) return items;
  const staleAfterSeconds = (3 * options.periodMs) / 1000;
  const upLongEnough = options.upForMs !== undefined && options.upForMs > 3 * options.periodMs;
  if (last && last.ageSeconds !== null && last.ageSeconds > staleAfterSeconds)
    items.push(
      item(
        'stale_pull',
        'health',
        `the last sync finished ${last.ageSeconds} s ago (more than three schedule periods)`,
        CHECK_THE_DAEMON,
      ),
    );
  if (!last && upLongEnough) items.push(item('no_pull', 'health', 'no sync has finished yet', CHECK_THE_DAEMON));
  if (success && success.ageSeconds > staleAfterSeconds)
    items.push(
      item(
        'stale_mirror',
        'readiness',
        `the mirror is stale: the last successful sync finished ${Math.round(success.ageSeconds)} s ago (more than three schedule periods)`,
        CHECK_THE_DAEMON,
      ),
    );
  if (!success && upLongEnough)
    items.push(item('no_success', 'readiness', 'no sync has succeeded in three schedule periods', CHECK_THE_DAEMON));
  return items;
}

async function heldItems(db: Kysely<Database>): Promise<AttentionItem[]> {
  return (await heldDeletes(db)).map((held) =>
    item(
      'held_deletes',
      null,
      `${held.held} deletes of ${held.entity} held (too many at once)`,
      heldDeletesAdvice(held.entity),
      held.held,
      held.entity,
    ),
  );
}

async function rejectedItems(db: Kysely<Database>): Promise<AttentionItem[]> {
  const rejected = await countRejectedValues(db);
  if (rejected === 0) return [];
  return [
    item(
      'rejected_values',
      null,
      `${rejected} values not stored as sent`,
      'see invoice-mirror status or table rejected_values; correct them in the service, and the next sync that reads them clears them',
      rejected,
    ),
  ];
}

async function jobItems(db: Kysely<Database>): Promise<AttentionItem[]> {
  const interrupted = (await countJobsByStatus(db)).interrupted ?? 0;
  if (interrupted === 0) return [];
  return [
    item(
      'interrupted_jobs',
      null,
      `${interrupted} jobs interrupted (their worker stopped during an attempt)`,
      "see 'invoice-mirror jobs list --status interrupted' and 'jobs show ID'; then 'jobs retry ID' or 'jobs cancel ID'",
      interrupted,
    ),
  ];
}

async function rateLimitItems(db: Kysely<Database>): Promise<AttentionItem[]> {
  const spentAt = await rateLimitSpentAt(db);
  if (!spentAt) return [];
  return [
    item(
      'rate_limit_spent',
      null,
      `the service's hourly rate limit was spent (no request left at ${spentAt.toISOString()})`,
      'wait for the next hour: syncs and jobs go on by themselves then',
    ),
  ];
}
