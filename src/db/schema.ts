/**
 * The Kysely type of the whole database: every table, typed by the migration that creates it.
 */
import type { ChangesTable, JobsTable, SyncRunsTable } from '../../migrations/0001_core.js';
import type { DocumentLinesTable, MirrorRow } from '../../migrations/0002_mirror.js';
import type { ColumnType } from 'kysely';

export interface EntityPullsTable {
  entity: string;
  last_complete_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  last_complete_run_id: number | null;
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
}
