export { openDatabase, type DatabaseHandle, type DatabaseOptions } from './connect.js';
export { migrate, schemaProblem } from './migrate.js';
export { lockHolder, releaseLease, takeLease, takeWaiting, type LeasePurpose, type LockPurpose } from './locks.js';
export { jsonb } from './json.js';
export type {
  ChangeOp,
  Database,
  EntityCounts,
  JobStatus,
  SubscriptionState,
  SyncRunKind,
  SyncRunStatus,
} from './schema.js';
export { serviceLock, type Exclusive } from './service-lock.js';
export { quoteLiteral, quoteName } from './quote.js';
export {
  ABANDONED_PULL,
  closeOrphanedRuns,
  closeRunIfRunning,
  finishRun,
  lastFinishedPull,
  lastRateLimit,
  rateLimitSpentAt,
  recentRuns,
  runDetails,
  dailyActivity,
  type DayActivity,
  type RunDetail,
  recordPendingRunEnds,
  recordRunEnd,
  recordRunProgress,
  secondsSinceLastPullStarted,
  lastSucceededPull,
  lastSucceededPullAt,
  startRun,
  type FinishedPull,
  type RunEnd,
} from './runs.js';
export {
  accountSummaries,
  countJobsByStatus,
  jobsInScope,
  jobsTouchingRecord,
  mirrorCounts,
  type AccountSummary,
  type JobListRow,
} from './summaries.js';
export {
  attentionLine,
  needsAttention,
  type AttentionItem,
  type AttentionKind,
  type AttentionOptions,
} from './attention.js';
export { changeFeed, recordHistory, type ChangeFilter, type ChangeRow, type VersionRow } from './changes.js';
export {
  HELD_DELETES_ADVICE_TEXT,
  HELD_DELETES_EXPLAINED,
  heldDeleteKeys,
  heldDeletes,
  heldDeletesAdvice,
  heldDeletesLine,
  type HeldDeletes,
} from './held-deletes.js';
export { archivedPdf } from './invoice-pdfs.js';
export { lastCompletePullOf, lastCompletePulls, pullState, type PullState } from './pulls.js';
export { documentLines, recordByKey, searchRecords, type RecordSearch } from './records.js';
export {
  countRejectedValues,
  firstRejectedValues,
  rejectedValuesBefore,
  rejectedValuesByField,
  type RejectedField,
} from './rejected-values.js';
export { inScope, oneAccount, type AccountScope } from './scope.js';
export { fleetStatus, pullAges, type FleetStatus } from './fleet.js';
