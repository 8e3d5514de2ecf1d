export {
  ENTITIES,
  ENTITY_NAMES,
  entityNamed,
  type EntityDefinition,
  type MirrorTable,
  type DocumentType,
} from './entities.js';
export {
  runSync,
  SyncBusyError,
  type SyncOptions,
  type SyncOutcome,
  type SyncProgress,
  type EntityOutcome,
} from './run.js';
export { refreshRecords, type RefreshTarget, type RefreshOutcome } from './refresh.js';
