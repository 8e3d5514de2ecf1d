/**
 * The migrations, in the order they apply. Forward-only: a migration that has landed is never
 * edited; a change to the schema is a new file appended here.
 */
import type { Kysely } from 'kysely';
import * as core from './0001_core.js';
import * as mirror from './0002_mirror.js';
import * as reports from './0004_reports.js';
import * as status from './0005_status.js';
import * as writePath from './0006_write_path.js';
import * as deletedIndex from './0007_deleted_index.js';
import * as dataSafety from './0008_data_safety.js';
import * as interruptedRuns from './0009_interrupted_runs.js';
import * as invoices from './0010_invoices.js';
import * as invoicePdfs from './0011_invoice_pdfs.js';
import * as accounts from './0012_accounts.js';
import * as fleet from './0013_fleet.js';
import * as pullCursors from './0014_pull_cursors.js';
import * as events from './0015_events.js';
import * as confinement from './0016_confinement.js';
import * as pullsParked from './0017_pulls_parked.js';
import * as accountService from './0018_account_service.js';
import * as vat from './0019_vat.js';
import * as fleetLeader from './0021_fleet_leader.js';
import * as workDue from './0022_work_due.js';
import * as accountChecks from './0023_account_checks.js';
import * as accountChecksOnce from './0024_account_checks_once.js';

export interface Migration {
  name: string;
  up(db: Kysely<any>): Promise<void>;
}

export const migrations: Migration[] = [
  { name: '0001_core', up: core.up },
  { name: '0002_mirror', up: mirror.up },
  { name: '0004_reports', up: reports.up },
  { name: '0005_status', up: status.up },
  { name: '0006_write_path', up: writePath.up },
  { name: '0007_deleted_index', up: deletedIndex.up },
  { name: '0008_data_safety', up: dataSafety.up },
  { name: '0009_interrupted_runs', up: interruptedRuns.up },
  { name: '0010_invoices', up: invoices.up },
  { name: '0011_invoice_pdfs', up: invoicePdfs.up },
  { name: '0012_accounts', up: accounts.up },
  { name: '0013_fleet', up: fleet.up },
  { name: '0014_pull_cursors', up: pullCursors.up },
  { name: '0015_events', up: events.up },
  { name: '0016_confinement', up: confinement.up },
  { name: '0017_pulls_parked', up: pullsParked.up },
  { name: '0018_account_service', up: accountService.up },
  { name: '0019_vat', up: vat.up },
  { name: '0021_fleet_leader', up: fleetLeader.up },
  { name: '0022_work_due', up: workDue.up },
  { name: '0023_account_checks', up: accountChecks.up },
  { name: '0024_account_checks_once', up: accountChecksOnce.up },
];
