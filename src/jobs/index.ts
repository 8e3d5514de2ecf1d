/**
 * Queued outbound actions: the `jobs` table as a queue, one handler per kind, the runner of an
 * account's jobs.
 */
export { JobRunner, type AccountRefused, type RunnerDeps, type JobFinished } from './runner.js';
export {
  createAccountRunner,
  sessionRunner,
  type AccountRunner,
  type AccountRunnerOptions,
} from './account-runner.js';
export type { AccountMirror } from './mirror.js';
export {
  KINDS,
  KIND_NAMES,
  kindNamed,
  parseJob,
  payloadTemplate,
  type JobKind,
  type JobKindName,
  type JobRow,
} from './kinds.js';
export {
  addJob,
  cancelJob,
  getJob,
  listJobs,
  precheckRefusal,
  retryJob,
  JobStateError,
  JOB_STATUSES,
  type NewJob,
  type JobStatus,
  type RecoveredJob,
  type RetryDecisions,
} from './queue.js';
export { PayloadError, PrecheckError } from './errors.js';
export { batchFailureText, batchesOf, idStates, idsIn, RESOLVE_COMMANDS_TEXT, type IdState } from './ledger.js';
export { DEFAULT_BACKOFF, type Backoff } from './outcome.js';
