/**
 * The plan phase of one entity's pull: full or incremental (see incremental.ts), how pages are
 * written (plain inserts into a table that was empty), the cap on `count` learned before, the
 * records expected, and what the mirror holds to compare the pages with.
 */
import type { HeldFingerprints } from '../api/index.js';
import { entityNamed } from '../catalog/index.js';
import type { EntityTable } from './entity-table.js';
import { DEFAULT_RECONCILE_HOURS, type PullPlan } from './incremental.js';
import type { PassCursor } from './resume.js';
import type { PullRun } from './types.js';

/** What the mirror held when a pull began, to tell the records of a page that need nothing. */
export interface Comparison {
  /** The hashes of the live rows, by key: loaded in one query rather than one per page. */
  stored: ReadonlyMap<number, string | null>;
  /**
   * Keys with `rejected_values` rows. Their records are read in full even when unchanged, so that
   * their rows are met again (and kept) as before.
   */
  keysWithIssues: ReadonlySet<number>;
  /** For an entity whose keys are made from its records: the stored texts' fingerprints, to their keys. */
  keyOfHash?: ReadonlyMap<string, number>;
}

/** The plan phase's findings. */
export interface PlannedPull {
  plan: PullPlan;
  /**
   * The database's clock, the one `last_changed_at` is written with: rows changed after this
   * moment by someone else (a job's refresh) are not swept even though this pull missed them.
   */
  startedAt: Date;
  /** performance.now() when the pull began, for progress. */
  began: number;
  /**
   * Into an empty table every record is new: asking which ones changed is skipped, and pages are
   * written as plain inserts until one meets a stored key (then the page is merged instead).
   */
  tableWasEmpty: boolean;
  /** The cap on `count` learned by an earlier pull. */
  knownCap: number | null;
  /**
   * What a page's records are compared with (null for an empty table), read while the first page
   * travels (see Comparison).
   */
  comparison: Promise<Comparison> | null;
  /** The stored texts' fingerprints once `comparison` is read (for the split: see splitJsonArray). */
  held: () => HeldFingerprints | undefined;
  /** The records a full pull should find (for progress), when known. */
  expected: number | null;
  /** The pass this pull goes on with (its list resumes at its last page), if any. */
  resumed: PassCursor | null;
  /** The run that began this full pull's pass (an earlier one when it resumed). */
  passRunId: number;
}

export async function planEntityPull(
  { settings, options, pass, runId, session: { log } }: PullRun,
  table: EntityTable,
): Promise<PlannedPull> {
  const entity = table.definition.name;
  const began = performance.now();
  const [state, planned] = await Promise.all([
    table.state(),
    table.plan({
      full: options.kind === 'backfill' || options.full === true,
      reconcileAfterHours: settings.reconcileAfterHours ?? DEFAULT_RECONCILE_HOURS,
    }),
  ]);
  const resumed = pass?.cursors.get(entity) ?? null;
  // A pass under way goes on, whatever this pull would otherwise be.
  const plan: PullPlan = resumed ? { mode: 'full', reason: 'going on with its pass' } : planned;
  if (resumed)
    log.info(
      { entity, start: resumed.nextStart, fetched: resumed.fetched },
      'going on with the pass from its last page',
    );
  if (plan.mode === 'full' && table.definition.incremental)
    log.info({ entity, reason: plan.reason }, 'full, reconciling pull');
  const expected = options.onProgress && plan.mode === 'full' ? await table.expectedRecords() : null;
  const tableWasEmpty = resumed?.tableWasEmpty ?? state.empty;
  const comparison = tableWasEmpty ? null : compareWith(table);
  let held: HeldFingerprints | undefined;
  // Awaited with the first page; until then (or if the pull fails first) a failure is not unhandled.
  comparison?.then(
    ({ stored }) => {
      held = (key) => stored.get(key);
    },
    () => {},
  );
  return {
    plan,
    startedAt: resumed?.passStartedAt ?? state.now,
    began,
    tableWasEmpty,
    knownCap: state.cap,
    comparison,
    held: () => held,
    expected,
    resumed,
    passRunId: resumed?.passRunId ?? runId,
  };
}

async function compareWith(table: EntityTable): Promise<Comparison> {
  const [stored, issues] = await Promise.all([table.storedHashes(), table.keysWithIssues()]);
  if (!('derivedKey' in entityNamed(table.definition.name))) return { stored, keysWithIssues: issues };
  const keyOfHash = new Map<string, number>();
  for (const [key, hash] of stored) if (hash !== null) keyOfHash.set(hash, key);
  return { stored, keysWithIssues: issues, keyOfHash };
}
