/**
 * The settings in a few words each, for `--help` (the README's Configuration table says more).
 * Kept apart from config.ts so that `--help` loads no validation code; the type holds it to the
 * settings config.ts reads.
 */
import type { settingsSchema } from './config.js';

/** What each setting is, in a few words (for `--help`; the README's table says more). */
export const SETTING_MEANINGS: Record<keyof typeof settingsSchema.shape, string> = {
  DATABASE_URL: 'Postgres connection string (unset: the embedded server)',
  EMBEDDED_DB_DIR: 'where the embedded database lives',
  MIRROR_SCHEMA: 'Postgres schema of the mirror',
  INVOICING_API_URL: 'base URL of the service, ending in /api/v1',
  INVOICING_API_USER: "the service account's user name",
  INVOICING_API_KEY: "the service account's API key",
  SYNC_CRON: "schedule of the daemon's sync",
  LOG_LEVEL: 'fatal, error, warn, info, debug (stack traces), trace or silent',
  HEALTH_HOST: "address of the daemon's /healthz, /metrics and console",
  HEALTH_PORT: 'its port',
  PAGE_SIZE: 'records per list request',
  REQUESTS_PER_HOUR: 'own hourly request budget (0: none)',
  REQUEST_TIMEOUT_MS: 'deadline of one request',
  SEND_MS_PER_INVOICE: 'time the service takes to send one invoice',
  RATE_LIMIT_PAUSE_MS: 'pause after the hourly quota is spent',
  MAX_RETRIES: 'retries of a request that is safe to repeat',
  JOB_POLL_INTERVAL_MS: "job runner's polling backstop",
  JOB_MAX_ATTEMPTS: 'attempts of a job before it fails',
  UNKNOWN_OUTCOME_SETTLE_MS: 'wait after a call of unknown outcome before checking what happened',
  SHUTDOWN_TIMEOUT_MS: 'how long a stopping daemon lets work finish',
  DB_POOL_SIZE: 'Postgres connections',
  AUTO_MIGRATE: 'whether commands that keep the mirror migrate first',
  DELETE_GUARD_PERCENT: 'deletes of more than this % of an entity are held…',
  DELETE_GUARD_ROWS: '…and of more than this many rows',
  ALLOW_DELETES: 'entities whose deletes are never held',
  RECONCILE_INTERVAL_HOURS: 'hours between full pulls of invoices',
  CONSOLE: 'whether the daemon serves the web console',
  CONSOLE_USER: 'Basic-auth user of the console',
  CONSOLE_PASSWORD: 'Basic-auth password of the console',
  CONSOLE_TOKEN: 'bearer token the console accepts',
};
