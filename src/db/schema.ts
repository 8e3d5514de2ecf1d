/**
 * The Kysely type of the whole database: every table, typed by the migration that creates it.
 */
import type {
  ChangesTable,
  JobsTable,
  SyncRunStatus as CoreRunStatus,
  SyncRunsTable as CoreRunsTable,
} from '../../migrations/0001_core.js';
import type { DocumentLinesTable, MirrorRow } from '../../migrations/0002_mirror.js';
import type { ColumnType } from 'kysely';

/** A run's status: 0001's, and `interrupted` (a pull stopped on purpose) from 0009 on. */
export type SyncRunStatus = CoreRunStatus | 'interrupted';

export interface SyncRunsTable extends Omit<CoreRunsTable, 'status'> {
  status: ColumnType<SyncRunStatus, SyncRunStatus | undefined, SyncRunStatus>;
}

export interface EntityPullsTable {
  entity: string;
  last_complete_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  last_complete_run_id: number | null;
}

/** A value stored other than as the service sent it (see migrations/0008_data_safety.ts). */
export interface RejectedValuesTable {
  entity: string;
  entity_id: string;
  field: string;
  action: 'rejected' | 'repaired' | 'skipped';
  value: string;
  reason: string;
  first_run_id: number | null;
  last_run_id: number | null;
  first_seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
  last_seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** A record found missing upstream whose delete waits for confirmation (the delete safeguard). */
export interface HeldDeletesTable {
  entity: string;
  entity_id: string;
  run_id: number | null;
  held_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The most records a list answers per request, where the service caps `count`. */
export interface ListCapsTable {
  list: string;
  max_count: number;
  learned_at: ColumnType<Date, Date | string | undefined, Date | string>;
  run_id: number | null;
}

export interface Database {
  sync_runs: SyncRunsTable;
  changes: ChangesTable;
  jobs: JobsTable;
  clients: MirrorRow<'clients'>;
  products: MirrorRow<'products'>;
  quotations: MirrorRow<'quotations'>;
  saved_invoices: MirrorRow<'saved_invoices'>;
  repeating_invoices: MirrorRow<'repeating_invoices'>;
  countries: MirrorRow<'countries'>;
  document_lines: DocumentLinesTable;
  entity_pulls: EntityPullsTable;
  rejected_values: RejectedValuesTable;
  held_deletes: HeldDeletesTable;
  list_caps: ListCapsTable;
}
