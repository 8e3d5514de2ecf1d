export { openDatabase, type DatabaseHandle, type DatabaseOptions } from './connect.js';
export { migrate, schemaProblem } from './migrate.js';
export { lockKey, type LockPurpose } from './locks.js';
export { jsonb } from './json.js';
export type { ChangeOp, Database, EntityCounts, JobStatus, SyncRunKind, SyncRunStatus } from './schema.js';
export { serviceLock, type Exclusive } from './service-lock.js';
export { quoteLiteral, quoteName } from './quote.js';
export {
  ABANDONED_PULL,
  closeOrphanedRuns,
  closeRunIfRunning,
  finishRun,
  lastFinishedPull,
  lastRateLimit,
  recentRuns,
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
export { countJobsByStatus, heldDeletes, mirrorCounts } from './summaries.js';
