/**
 * The Kysely type of the whole database. The mirror tables' types are derived from the catalogue
 * (src/catalog/); the bookkeeping tables are written out here, as the migrations leave them.
 */
import type { ColumnType, Generated } from 'kysely';
import type { DocumentLinesTable, DocumentType, MirrorRow, MirrorTables } from '../catalog/index.js';

export type SyncRunKind = 'backfill' | 'sync' | 'refresh';
/** `interrupted` (a pull stopped on purpose) since 0009. */
export type SyncRunStatus = 'running' | 'succeeded' | 'failed' | 'partial' | 'interrupted';
export interface EntityCounts {
  fetched: number;
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export interface SyncRunsTable {
  account_id: number;
  id: Generated<number>;
  kind: SyncRunKind;
  status: ColumnType<SyncRunStatus, SyncRunStatus | undefined, SyncRunStatus>;
  /** The entities this run pulls, in order. */
  entities: string[];
  started_at: ColumnType<Date, Date | string | undefined, never>;
  finished_at: ColumnType<Date | null, never, Date | string | null>;
  /** Per entity: `{"clients": {"fetched": 10, "inserted": 2, …}, …}`. */
  counts: ColumnType<Record<string, EntityCounts>, string | undefined, string>;
  requests_made: ColumnType<number, number | undefined, number>;
  error: string | null;
  rate_limit_remaining: ColumnType<number | null, number | null | undefined, number | null>;
}

export type ChangeOp = 'insert' | 'update' | 'delete' | 'restore';
export interface ChangesTable {
  account_id: number;
  id: Generated<number>;
  sync_run_id: number | null;
  /** The mirror table the record lives in, e.g. `clients`. */
  entity: string;
  entity_id: string;
  op: ChangeOp;
  changed_fields: string[] | null;
  before: unknown;
  after: unknown;
  detected_at: ColumnType<Date, Date | string | undefined, never>;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';
export interface JobsTable {
  account_id: number;
  id: Generated<number>;
  kind: string;
  payload: ColumnType<unknown, string | undefined, string>;
  status: ColumnType<JobStatus, JobStatus | undefined, JobStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  run_after: ColumnType<Date, Date | string | undefined, Date | string>;
  idempotency_key: string | null;
  result: ColumnType<unknown, string | null | undefined, string | null>;
  last_error: string | null;
  /** Every failed attempt: `[{"attempt": 1, "at": "…", "error": "…"}, …]`. */
  errors: ColumnType<unknown[], string | undefined, string>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  started_at: ColumnType<Date | null, never, Date | string | null>;
  finished_at: ColumnType<Date | null, never, Date | string | null>;
  /** The service the job was queued for (filled at insert from its account; see migrations/0018). */
  service_url: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EntityPullsTable {
  account_id: number;
  entity: string;
  last_complete_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  last_complete_run_id: number | null;
  /** Incremental entities: the sent date the next incremental pull lists from (`since`). */
  since_cursor: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A value stored other than as the service sent it (see migrations/0008_data_safety.ts). */
export interface RejectedValuesTable {
  account_id: number;
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
  account_id: number;
  entity: string;
  entity_id: string;
  run_id: number | null;
  held_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The most records a list answers per request, where the service caps `count`. */
export interface ListCapsTable {
  account_id: number;
  list: string;
  max_count: number;
  learned_at: ColumnType<Date, Date | string | undefined, Date | string>;
  run_id: number | null;
}

/** A sent invoice's PDF, as the service rendered it when `fetch_invoice_pdf` ran. */
export interface InvoicePdfsTable {
  account_id: number;
  invoice_id: number;
  invoicenr: string | null;
  pdf: Buffer;
  size_bytes: number;
  sha256: string;
  fetched_at: ColumnType<Date, Date | string | undefined, Date | string>;
  job_id: number | null;
}

export type AccountState = 'active' | 'paused' | 'refused' | 'removed';
/** An account of the service (see migrations/0012_accounts.ts). */
export interface AccountsTable {
  id: Generated<number>;
  name: string;
  /** null: the INVOICING_API_URL setting. */
  api_url: string | null;
  /** null (with api_key): the INVOICING_API_USER and INVOICING_API_KEY settings. */
  api_user: string | null;
  /** The key encrypted under ACCOUNTS_SECRET (src/accounts/secret.ts), never the key itself. */
  api_key: string | null;
  state: ColumnType<AccountState, AccountState | undefined, AccountState>;
  state_reason: string | null;
  state_changed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  notes: string | null;
  /** How fresh the daemons keep the account (a Postgres interval as text); null: SYNC_INTERVAL. */
  sync_interval: ColumnType<string | null, string | null | undefined, string | null>;
  /** The service its rows and jobs come from (src/accounts/service.ts); null: not bound yet. */
  service_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** The country whose VAT return the account files (ISO code; NL or BE), since 0019. */
  vat_country: ColumnType<string, string | undefined, string>;
}

/** A payment of a sent invoice the mirror knows (migrations/0019_vat.ts), written by triggers. */
export interface PaymentsTable {
  account_id: number;
  id: Generated<number>;
  invoice_id: number;
  source: 'registered' | 'observed';
  paid_on: string | null;
  detected_at: Date;
  amount: string | null;
  method: string | null;
  job_id: number | null;
  change_id: number | null;
}

/** A daemon of the fleet (see migrations/0013_fleet.ts). */
export interface DaemonsTable {
  id: string;
  host: string;
  pid: number;
  version: string;
  started_at: ColumnType<Date, Date | string | undefined, never>;
  heartbeat_at: ColumnType<Date, Date | string | undefined, Date | string>;
  stopped_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  stop_reason: string | null;
}

/** An account's work as the daemons share it (see migrations/0013_fleet.ts). */
export interface AccountLeasesTable {
  account_id: number;
  due_at: ColumnType<Date, Date | string | undefined, Date | string>;
  daemon_id: string | null;
  leased_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  parked_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  parked_reason: string | null;
  parked_pulls_only: Generated<boolean>;
  /** The oldest queued job's run_after (kept by triggers on jobs; migration 0022). */
  first_job_at: ColumnType<Date | null, never, never>;
  /** Whether the account is active (kept by a trigger on accounts). */
  account_active: ColumnType<boolean, never, never>;
  /** When its work is next due: what the claim reads (generated). */
  work_due_at: ColumnType<Date | null, never, never>;
}

/** A full pull under way, where it resumes (migration 0014). */
export interface PullCursorsTable {
  account_id: number;
  entity: string;
  pass_run_id: ColumnType<number, number | string, number | string>;
  pass_started_at: ColumnType<Date, Date | string, Date | string>;
  table_was_empty: boolean;
  next_start: number;
  last_page_start: number;
  last_page_ids: string[];
  seen_keys: number[];
  unidentified: ColumnType<number, number | undefined, number>;
  fetched: ColumnType<number, number | undefined, number>;
  pages: ColumnType<number, number | undefined, number>;
  saved_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** A business event (see migrations/0015_events.ts, docs/events.md); written by triggers only. */
export interface EventsTable {
  account_id: number;
  /** Past 2^53 postgres.js gives it as text: compare and pass ids as text. */
  id: number | string;
  type: string;
  occurred_at: Date;
  entity: string;
  record_id: string;
  body: Record<string, unknown>;
  change_id: number | null;
}

export type SubscriptionState = 'active' | 'paused';
export interface WebhookSubscriptionsTable {
  id: Generated<number>;
  url: string;
  /** Sealed under ACCOUNTS_SECRET (src/accounts/secret.ts), never the secret itself. */
  secret: string;
  event_types: string[] | null;
  state: ColumnType<SubscriptionState, SubscriptionState | undefined, SubscriptionState>;
  state_reason: string | null;
  state_changed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  account_id: number | null;
}

export interface WebhookDeliveriesTable {
  account_id: number;
  id: Generated<number>;
  subscription_id: number;
  event_id: number | string;
  entity: string;
  record_id: string;
  state: ColumnType<'pending' | 'delivered', 'pending' | 'delivered' | undefined, 'pending' | 'delivered'>;
  attempts: ColumnType<number, number | undefined, number>;
  failures: ColumnType<number, number | undefined, number>;
  due_at: ColumnType<Date, Date | string | undefined, Date | string>;
  delivered_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface WebhookAttemptsTable {
  account_id: number;
  id: Generated<number>;
  delivery_id: number;
  attempted_at: ColumnType<Date, Date | string | undefined, never>;
  status: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
}

export interface Database extends MirrorTables {
  /** Its derived column too (catalog/countries.ts). */
  countries: MirrorRow<'countries'> & { iso2: ColumnType<string | null, never, never> };
  payments: PaymentsTable;
  accounts: AccountsTable;
  pull_cursors: PullCursorsTable;
  daemons: DaemonsTable;
  account_leases: AccountLeasesTable;
  sync_runs: SyncRunsTable;
  changes: ChangesTable;
  jobs: JobsTable;
  document_lines: DocumentLinesTable<DocumentType>;
  entity_pulls: EntityPullsTable;
  rejected_values: RejectedValuesTable;
  held_deletes: HeldDeletesTable;
  list_caps: ListCapsTable;
  invoice_pdfs: InvoicePdfsTable;
  events: EventsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
