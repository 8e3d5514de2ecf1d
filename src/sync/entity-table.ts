/**
 * One entity's tables as one account sees them: every statement a pull makes on them (its plan,
 * the comparison, the writes' bookkeeping, the sweep, the cursor), bound once to the account and
 * the entity. The SQL stays where it is (merge, incremental, rejected, resume, safeguard); this
 * only delegates, so a pull speaks of `table.touchSeen(seen)` rather than passing the database,
 * the account and the definition to each.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ValueIssue } from '../api/index.js';
import type { Database } from '../db/index.js';
import type { EntityDefinition, RecordIdentity } from './entities.js';
import type { PageText } from './page-text.js';
import { changingNotListed, earlierIssues, planPull, recordCompletePull, type PullPlan } from './incremental.js';
import {
  analyzeFilled,
  keysToMerge,
  markDeleted,
  storedHashes,
  touchSeen,
  writePage,
  type MergeResult,
  type WriteMode,
} from './merge.js';
import { keysWithIssues, recordIssues, replaceRecordIssues, resolveIssues } from './rejected.js';
import { dropCursor, saveCursor, type PassCursor } from './resume.js';
import { sweepWithSafeguard, type DeletePolicy, type SweepOutcome } from './safeguard.js';

/** What a table needs of a session: whose rows, and the connection (the pool, or a run's own). */
export interface TableSession {
  readonly account: { readonly id: number };
  readonly db: Kysely<Database>;
}

/** What the plan reads in one statement: the clock, whether the table is empty, the cap on `count`. */
export interface TableState {
  now: Date;
  empty: boolean;
  cap: number | null;
}

export interface EntityTable {
  readonly definition: EntityDefinition;
  readonly db: Kysely<Database>;
  /** The same table through another connection (the run's own, or the pool). */
  on(db: Kysely<Database>): EntityTable;
  state(): Promise<TableState>;
  plan(wanted: { full: boolean; reconcileAfterHours: number }): Promise<PullPlan>;
  /** The live rows of an entity pulled completely before (what a full pull should find), else null. */
  expectedRecords(): Promise<number | null>;
  storedHashes(): Promise<Map<number, string | null>>;
  keysWithIssues(): Promise<Set<number>>;
  keysToMerge(identities: readonly RecordIdentity[]): Promise<Set<number>>;
  changingNotListed(listed: ReadonlySet<number>): Promise<number[]>;
  /** Writes one prepared page in one statement (see writePage). */
  writePage(page: PageText, runId: number | null, mode: WriteMode): Promise<MergeResult & { mode: WriteMode }>;
  /** Marks one record deleted (a job's refresh found it gone); whether it was live. */
  markDeleted(key: number, runId: number | null): Promise<boolean>;
  recordIssues(runId: number | null, issues: readonly ValueIssue[]): Promise<void>;
  /** After one record was read again: its issues rows become exactly `issues`. */
  replaceRecordIssues(id: string, runId: number | null, issues: readonly ValueIssue[]): Promise<void>;
  saveCursor(cursor: PassCursor): Promise<void>;
  dropCursor(): Promise<void>;
  rememberCap(maxCount: number, runId: number): Promise<void>;
  sweep(
    seen: ReadonlySet<number>,
    startedAt: Date,
    runId: number,
    policy: DeletePolicy,
    log: Logger,
  ): Promise<SweepOutcome>;
  touchSeen(seen: Iterable<number>, resolutionHours: number): Promise<number>;
  resolveIssues(passRunId: number): Promise<void>;
  recordCompletePull(runId: number, plan: PullPlan, reconcileNext: boolean): Promise<void>;
  earlierIssues(runId: number): Promise<number>;
  analyzeFilled(): Promise<void>;
}

export function entityTable(session: TableSession, definition: EntityDefinition): EntityTable {
  const { db } = session;
  const accountId = session.account.id;
  const entity = definition.name;
  return {
    definition,
    db,
    on: (other) => entityTable({ account: session.account, db: other }, definition),
    state: () => tableState(db, accountId, entity),
    plan: (wanted) => planPull(db, accountId, definition, wanted),
    expectedRecords: () => expectedRecords(db, accountId, entity),
    storedHashes: () => storedHashes(db, accountId, definition),
    keysWithIssues: () => keysWithIssues(db, accountId, entity),
    keysToMerge: (identities) => keysToMerge(db, accountId, definition, identities),
    changingNotListed: (listed) => changingNotListed(db, accountId, definition, listed),
    writePage: (page, runId, mode) => writePage(db, accountId, definition, page, runId, mode),
    markDeleted: (key, runId) => markDeleted(db, accountId, definition, key, runId),
    recordIssues: (runId, issues) => recordIssues(db, accountId, runId, issues),
    replaceRecordIssues: (id, runId, issues) => replaceRecordIssues(db, accountId, entity, id, runId, issues),
    saveCursor: (cursor) => saveCursor(db, accountId, entity, cursor),
    dropCursor: () => dropCursor(db, accountId, entity),
    rememberCap: (maxCount, runId) => rememberCap(db, accountId, entity, maxCount, runId),
    sweep: (seen, startedAt, runId, policy, log) =>
      sweepWithSafeguard(db, accountId, definition, seen, startedAt, runId, policy, log),
    touchSeen: (seen, hours) => touchSeen(db, accountId, definition, seen, hours),
    resolveIssues: (passRunId) => resolveIssues(db, accountId, entity, passRunId),
    recordCompletePull: (runId, plan, reconcileNext) =>
      recordCompletePull(db, accountId, definition, runId, plan, reconcileNext),
    earlierIssues: (runId) => earlierIssues(db, accountId, entity, runId),
    analyzeFilled: () => analyzeFilled(db, definition),
  };
}

/** One statement, as each costs a round trip and its planning on every pull of every account. */
async function tableState(db: Kysely<Database>, accountId: number, entity: string): Promise<TableState> {
  const { rows } = await sql<{ now: Date; empty: boolean; cap: number | null }>`
    select clock_timestamp() as now,
      not exists (select 1 from ${sql.table(entity)} where account_id = ${accountId}) as empty,
      (select max_count from list_caps where account_id = ${accountId} and list = ${entity}) as cap`.execute(db);
  const state = rows[0]!;
  return { now: state.now, empty: state.empty, cap: state.cap === null ? null : Number(state.cap) };
}

async function expectedRecords(db: Kysely<Database>, accountId: number, entity: string): Promise<number | null> {
  const { rows } = await sql<{ live: number | null }>`
    select case when exists (select 1 from entity_pulls
                              where account_id = ${accountId} and entity = ${entity} and last_complete_at is not null)
                then (select count(*) from ${sql.table(entity)} where account_id = ${accountId} and deleted_at is null)::int
           end as live`.execute(db);
  return rows[0]?.live ?? null;
}

async function rememberCap(
  db: Kysely<Database>,
  accountId: number,
  list: string,
  maxCount: number,
  runId: number,
): Promise<void> {
  await db
    .insertInto('list_caps')
    .values({ account_id: accountId, list, max_count: maxCount, run_id: runId })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'list'])
        .doUpdateSet({ max_count: maxCount, run_id: runId, learned_at: sql`clock_timestamp()` }),
    )
    .execute();
}
