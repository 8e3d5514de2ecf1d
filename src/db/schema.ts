/**
 * The Kysely type of the whole database: every table, typed by the migration that creates it.
 */
import type { ChangesTable, JobsTable, SyncRunsTable } from '../../migrations/0001_core.js';

export interface Database {
  sync_runs: SyncRunsTable;
  changes: ChangesTable;
  jobs: JobsTable;
}
