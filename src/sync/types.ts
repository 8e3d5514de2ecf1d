/**
 * What a pull is given and what it gives back, apart from how it runs (run.ts, entity-pull.ts):
 * the settings the configuration gives a pull, the options of a command, the progress and the
 * outcome of each entity.
 */
import type { Kysely } from 'kysely';
import type { PullingSession } from '../accounts/session.js';
import type { EntityName } from '../catalog/index.js';
import type { Database, EntityCounts } from '../db/index.js';
import type { PassUnderWay } from './resume.js';
import type { DeletePolicy } from './safeguard.js';

/** What the configuration gives every pull (src/app.ts's `pullSettings` builds it). */
export interface PullSettings {
  /**
   * Pages written at the same time, each in its own transaction on its own connection (default
   * 1). Postgres parses and stores a page on one core; two let a second core work while the
   * next page is fetched.
   */
  writeConcurrency?: number;
  /** The delete safeguard's settings (default: DEFAULT_DELETE_POLICY with the options' allowDeletes). */
  deletes?: DeletePolicy;
  /** Hours after which a sync pulls an incremental entity in full again (default 24). */
  reconcileAfterHours?: number;
}

export interface SyncProgress {
  entity: EntityName;
  /** Records received so far for this entity. */
  fetched: number;
  /** List pages received so far. */
  pages: number;
  /**
   * The records expected: the live rows the last complete pull left, for a full pull of an entity
   * pulled completely before; null when not known (a first pull, an incremental one).
   */
  expected: number | null;
  /** Time since this entity's pull began. */
  elapsedMs: number;
  /**
   * `pulling` until the entity's pull is over; `done` when its list was read to the end,
   * `stopped` when Ctrl-C (or SIGTERM) stopped it after a page, else `failed`.
   */
  state: 'pulling' | 'done' | 'stopped' | 'failed';
}

export interface SyncOptions {
  kind: 'backfill' | 'sync';
  /** Default: every entity. */
  entities?: readonly EntityName[];
  /** Records per list request (default: the client's). */
  pageSize?: number;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Aborting stops the run after the page being written. The run is marked `interrupted` at once
   * (so `status` tells the truth even if the process is then killed) and ends so, unless every
   * entity had completed.
   */
  signal?: AbortSignal;
  /** Entities whose deletes are applied however many (when `settings.deletes` is not given). */
  allowDeletes?: string[] | 'all';
  /** A full, reconciling pull of the incremental entities (a backfill always is one). */
  full?: boolean;
  /**
   * Asked after each page of a full pull: a reason to give way (the daemon's slice is over, a job
   * is waiting), or null to go on. Giving way ends the run after that page; the entity's pass goes
   * on from there at the next pull (resume.ts).
   */
  giveWay?: () => string | null;
}

/** What a run records per entity in `sync_runs.counts`. */
export interface RunEntityCounts extends EntityCounts {
  restored: number;
  /** Records found missing upstream whose delete is held (the delete safeguard). */
  held: number;
  /** Values not stored as sent (rejected, repaired, or their record skipped); see `rejected_values`. */
  rejected: number;
}

export interface EntityOutcome extends RunEntityCounts {
  complete: boolean;
  /** Set when only what could have changed was pulled (see incremental.ts). */
  incremental?: boolean;
  error?: string;
}

/** One run's pull of one account, as every entity's pull in it sees it. */
export interface PullRun {
  /** The account pulled, through the pool (its client, its bound logger). */
  readonly session: PullingSession;
  /** The run's own connection (it holds the run's lock). */
  readonly runDb: Kysely<Database>;
  readonly settings: PullSettings;
  readonly options: SyncOptions;
  readonly runId: number;
  /** The account's pass under way, read once per run (see resume.ts); its cursors resume the pulls. */
  readonly pass: PassUnderWay | null;
}
