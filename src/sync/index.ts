export {
  runSync,
  SyncBusyError,
  type SyncOptions,
  type SyncOutcome,
  type SyncProgress,
  type EntityOutcome,
  type PullSettings,
} from './run.js';
export { progressReporter, progressText } from './progress.js';
export { refreshRecords, type RefreshTarget, type RefreshOutcome } from './refresh.js';
export { keepHoldingDeletes, releaseHeldDeletes } from './safeguard.js';
