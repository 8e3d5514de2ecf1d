/**
 * Every setting of invoice-mirror, described once: its environment variable, type, default,
 * allowed values, meaning and whether it is a secret. The tree has the shape of the `Config`
 * object (`config.jobs.pollIntervalMs` is `SETTINGS.jobs.pollIntervalMs`); config.ts derives the
 * zod schema and `Config` from it, `--help` and `invoice-mirror config` their lists, and
 * scripts/settings-table.mjs the README's table. Adding a setting is adding one entry here.
 *
 * A leaf module (no imports), so that `--help` reads it without loading any validation code.
 * Meanings may hold `code` in backticks (README markdown; the help strips them).
 */

interface Described {
  /** The environment variable. */
  env: string;
  meaning: string;
  /** Never printed, and scrubbed from every log line. */
  secret?: boolean;
}

/** What a setting's text may be; config.ts has one parser per type. */
export type Setting = Described &
  (
    | { type: 'text'; default?: string }
    | { type: 'integer'; min: number; max: number; default: number }
    /** true/false, yes/no, 1/0, on/off. */
    | { type: 'flag'; default: boolean }
    | { type: 'choice'; values: readonly string[]; default: string }
    | { type: 'postgres-url' }
    /** http(s), ending in /api/v1; a trailing slash is dropped. */
    | { type: 'api-url'; default: string }
    /** Unset: no schedule of its own (see SYNC_INTERVAL). */
    | { type: 'cron' }
    /** `90s`, `15m`, `1h`, `1d` (or milliseconds): read as milliseconds. */
    | { type: 'duration'; min: number; max: number; default: number }
    /** A lower-case Postgres name. */
    | { type: 'schema-name'; default: string }
    /** Entity names, comma-separated, or `all`; unset: none. */
    | { type: 'entities' }
    /** `host[:port]` names, comma-separated, read lower-case; unset: none. */
    | { type: 'hosts' }
  );

/** The value a setting has once read: what its type makes of the text, or its default. */
export type SettingValue<S extends Setting> = S extends { type: 'integer' | 'duration' }
  ? number
  : S extends { type: 'flag' }
    ? boolean
    : S extends { type: 'choice'; values: readonly (infer V)[] }
      ? V
      : S extends { type: 'entities' }
        ? string[] | 'all'
        : S extends { type: 'hosts' }
          ? string[]
          : S extends { default: string }
            ? string
            : string | undefined;

interface SettingsTree {
  readonly [key: string]: Setting | SettingsTree;
}

/** The typed object a settings tree is read into. */
export type ValuesOf<T extends SettingsTree> = {
  -readonly [K in keyof T]: T[K] extends Setting
    ? SettingValue<T[K]>
    : T[K] extends SettingsTree
      ? ValuesOf<T[K]>
      : never;
};

export const SETTINGS = {
  databaseUrl: {
    env: 'DATABASE_URL',
    type: 'postgres-url',
    meaning: 'Postgres connection string (unset: the embedded server in `EMBEDDED_DB_DIR`)',
  },
  sqlDatabaseUrl: {
    env: 'SQL_DATABASE_URL',
    type: 'postgres-url',
    meaning:
      'the connection `sql` runs queries on, as a role with no more than USAGE on the schema and SELECT on its tables (unset: the role of `DATABASE_URL`, or, where that role is a superuser or may read or write server files or run programs, the reporting role the mirror makes, `<schema>_sql`)',
  },
  embeddedDbDir: {
    env: 'EMBEDDED_DB_DIR',
    type: 'text',
    default: './.invoice-mirror/db',
    meaning: 'where the embedded database lives',
  },
  embeddedDbIdleStop: {
    env: 'EMBEDDED_DB_IDLE_STOP',
    type: 'duration',
    min: 0,
    max: 86_400_000,
    default: 10_000,
    meaning:
      "how long the embedded database's server runs on after the last command using it ended (its keeper then stops it; `0`: at once)",
  },
  schema: {
    env: 'MIRROR_SCHEMA',
    type: 'schema-name',
    default: 'invoicing',
    meaning: 'Postgres schema that holds every table',
  },
  api: {
    url: {
      env: 'INVOICING_API_URL',
      type: 'api-url',
      default: 'https://www.factuursturen.nl/api/v1',
      meaning:
        'base URL of the service, for accounts without an `api_url` of their own (`default`); an account is served only at the service its rows come from (`accounts rebind` moves it)',
    },
    user: {
      env: 'INVOICING_API_USER',
      type: 'text',
      meaning:
        'the user name of an account without stored credentials (`default`), needed only when one is served (for a URL on this machine: `sandbox`)',
    },
    apiKey: {
      env: 'INVOICING_API_KEY',
      type: 'text',
      secret: true,
      meaning:
        'the API key of an account without stored credentials (`default`), needed only when one is served (for a URL on this machine: `sandbox`)',
    },
    pageSize: {
      env: 'PAGE_SIZE',
      type: 'integer',
      min: 1,
      max: 10_000,
      default: 500,
      meaning: 'records asked for per list request',
    },
    requestsPerHour: {
      env: 'REQUESTS_PER_HOUR',
      type: 'integer',
      min: 0,
      max: 1_000_000,
      default: 1000,
      meaning: "the client's own hourly request budget (0: none)",
    },
    timeoutMs: {
      env: 'REQUEST_TIMEOUT_MS',
      type: 'integer',
      min: 100,
      max: 600_000,
      default: 30_000,
      meaning: 'deadline of one request',
    },
    sendMsPerInvoice: {
      env: 'SEND_MS_PER_INVOICE',
      type: 'integer',
      min: 0,
      max: 60_000,
      default: 1500,
      meaning: 'time the service takes to send one saved invoice (send deadlines grow with it)',
    },
    rateLimitPauseMs: {
      env: 'RATE_LIMIT_PAUSE_MS',
      type: 'integer',
      min: 0,
      max: 3_600_000,
      default: 900_000,
      meaning: 'pause after the service says the hourly quota is spent',
    },
    maxRetries: {
      env: 'MAX_RETRIES',
      type: 'integer',
      min: 0,
      max: 20,
      default: 4,
      meaning: 'retries of a request that is safe to repeat',
    },
  },
  syncCron: {
    env: 'SYNC_CRON',
    type: 'cron',
    meaning:
      "a fixed schedule of the daemon's syncs of every account (e.g. `*/15 * * * *`); unset: each account is pulled once its last pull is `SYNC_INTERVAL` old",
  },
  syncInterval: {
    env: 'SYNC_INTERVAL',
    type: 'duration',
    min: 10_000,
    max: 7 * 86_400_000,
    default: 900_000,
    meaning:
      'how fresh the daemons keep each account: an account is pulled again once its last pull started this long ago (`90s`, `15m`, `1h`); `accounts.sync_interval` sets one account its own',
  },
  fleet: {
    leaseSeconds: {
      env: 'LEASE_SECONDS',
      type: 'integer',
      min: 3,
      max: 3600,
      default: 30,
      meaning:
        "how long a daemon's claim on an account's work lasts unless renewed: a daemon that dies or stalls loses its accounts to the others after this long",
    },
    accountConcurrency: {
      env: 'ACCOUNT_CONCURRENCY',
      type: 'integer',
      min: 1,
      max: 256,
      default: 8,
      meaning:
        'how many accounts one daemon works on at the same time (pulls and jobs; one request in flight per account)',
    },
    metricsAccountLabels: {
      env: 'METRICS_ACCOUNT_LABELS',
      type: 'integer',
      min: 0,
      max: 100_000,
      default: 50,
      meaning:
        'up to this many accounts, /metrics names each in an `account` label; beyond, counts are summed under `account="*"`, per-account last runs are left out, and `invoice_mirror_account_pull_age_seconds` (a histogram) says how fresh the accounts are',
    },
    actionReserve: {
      env: 'ACTION_RESERVE',
      type: 'integer',
      min: 0,
      max: 100_000,
      default: 20,
      meaning:
        "requests of each account's hourly budget (the service's `X-RateLimit-Remaining`, and `REQUESTS_PER_HOUR`) that a daemon's pulls leave to outbound actions: below it a pull gives way and the account's pulls are parked until it is back",
    },
    pullSlice: {
      env: 'PULL_SLICE',
      type: 'duration',
      min: 1000,
      max: 86_400_000,
      default: 60_000,
      meaning:
        "how long a daemon pulls one account before giving it back (a long pull, such as a first backfill of a large account, goes on from its last page at the account's next turn, so that the others are served in between)",
    },
  },
  logLevel: {
    env: 'LOG_LEVEL',
    type: 'choice',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    meaning: 'what the log says (`debug` adds stack traces)',
  },
  accounts: {
    secret: {
      env: 'ACCOUNTS_SECRET',
      type: 'text',
      secret: true,
      meaning:
        'the master key (at least 32 characters) that encrypts the API keys of accounts added with `invoice-mirror accounts add` or `import`',
    },
    secretFile: {
      env: 'ACCOUNTS_SECRET_FILE',
      type: 'text',
      meaning:
        'a file holding `ACCOUNTS_SECRET` (its first line), instead of the setting itself; readable by its owner only (`chmod 600`), or it is refused',
    },
  },
  health: {
    host: {
      env: 'HEALTH_HOST',
      type: 'text',
      default: '127.0.0.1',
      meaning: "address of the daemon's `/healthz`, `/metrics` and web console",
    },
    port: {
      env: 'HEALTH_PORT',
      type: 'integer',
      min: 0,
      max: 65535,
      default: 9464,
      meaning: 'their port',
    },
  },
  jobs: {
    pollIntervalMs: {
      env: 'JOB_POLL_INTERVAL_MS',
      type: 'integer',
      min: 50,
      max: 3_600_000,
      default: 5000,
      meaning: "job runner's polling backstop",
    },
    maxAttempts: {
      env: 'JOB_MAX_ATTEMPTS',
      type: 'integer',
      min: 1,
      max: 100,
      default: 5,
      meaning: 'attempts of a job before it fails',
    },
    settleMs: {
      env: 'UNKNOWN_OUTCOME_SETTLE_MS',
      type: 'integer',
      min: 0,
      max: 86_400_000,
      default: 900_000,
      meaning: 'after a call of unknown outcome, how long before a retry may conclude it did not happen',
    },
  },
  shutdownTimeoutMs: {
    env: 'SHUTDOWN_TIMEOUT_MS',
    type: 'integer',
    min: 0,
    max: 600_000,
    default: 30_000,
    meaning: 'how long the daemon waits for work in progress on shutdown',
  },
  dbPoolSize: {
    env: 'DB_POOL_SIZE',
    type: 'integer',
    min: 1,
    max: 100,
    default: 5,
    meaning: 'Postgres connections (at least 2 for sync and jobs run, 4 for the daemon)',
  },
  autoMigrate: {
    env: 'AUTO_MIGRATE',
    type: 'flag',
    default: true,
    meaning: 'whether sync, backfill, daemon and jobs run apply pending migrations first',
  },
  deletes: {
    maxPercent: {
      env: 'DELETE_GUARD_PERCENT',
      type: 'integer',
      min: 0,
      max: 100,
      default: 10,
      meaning: "the delete safeguard: deletes of more than this % of an entity's live rows …",
    },
    maxRows: {
      env: 'DELETE_GUARD_ROWS',
      type: 'integer',
      min: 0,
      max: 1_000_000_000,
      default: 5,
      meaning: '… and more than this many rows are held (a pull that finds every row gone too)',
    },
    allow: {
      env: 'ALLOW_DELETES',
      type: 'entities',
      meaning: 'entities whose deletes are never held',
    },
    confirmHours: {
      env: 'HELD_DELETES_CONFIRM_HOURS',
      type: 'integer',
      min: 0,
      max: 24 * 366,
      default: 0,
      meaning:
        'held deletes are applied once complete pulls find the records missing for this many hours (0: never by themselves; a person releases them)',
    },
  },
  reconcileIntervalHours: {
    env: 'RECONCILE_INTERVAL_HOURS',
    type: 'integer',
    min: 1,
    max: 24 * 366,
    default: 24,
    meaning: 'hours after which a sync pulls invoices in full again, sweeping their deletions',
  },
  events: {
    onBackfill: {
      env: 'EVENTS_ON_BACKFILL',
      type: 'flag',
      default: false,
      meaning:
        'whether a pull that fills an empty mirror writes events for what it inserts (`client.created`, `invoice.sent`, …; see docs/events.md)',
    },
  },
  webhooks: {
    allowPrivate: {
      env: 'WEBHOOKS_ALLOW_PRIVATE',
      type: 'flag',
      default: false,
      meaning:
        'whether webhooks may go to private, loopback or link-local addresses (checked when added and at every delivery)',
    },
    retryDelays: {
      env: 'WEBHOOK_RETRY_DELAYS',
      type: 'text',
      default: '5s,30s,2m,10m,30m,1h,2h,4h,8h,8h',
      meaning:
        'the waits before each retry of a failed delivery; after the last the subscription is paused (the default adds up to about a day)',
    },
    timeoutMs: {
      env: 'WEBHOOK_TIMEOUT',
      type: 'duration',
      min: 1000,
      max: 300_000,
      default: 10_000,
      meaning: 'how long a receiver may take to answer a delivery',
    },
    concurrency: {
      env: 'WEBHOOK_CONCURRENCY',
      type: 'integer',
      min: 1,
      max: 256,
      default: 16,
      meaning: "deliveries sent at once by one process (a record's events still go one after another)",
    },
  },
  exports: {
    sellers: {
      env: 'EXPORT_SELLERS',
      type: 'text',
      meaning:
        "a directory of seller files, one `NAME.json` per account (the administration's own details, as `export --seller` takes them): what `export xaf` and `export ubl` read without `--seller`, and what the console's Exports page needs",
    },
  },
  console: {
    inDaemon: {
      env: 'CONSOLE',
      type: 'flag',
      default: true,
      meaning: 'whether the daemon serves the web console beside `/healthz` and `/metrics`',
    },
    user: {
      env: 'CONSOLE_USER',
      type: 'text',
      default: 'admin',
      meaning: 'Basic-auth user of the console',
    },
    password: {
      env: 'CONSOLE_PASSWORD',
      type: 'text',
      secret: true,
      meaning: 'Basic-auth password of the console (this or `CONSOLE_TOKEN` is required off loopback)',
    },
    token: {
      env: 'CONSOLE_TOKEN',
      type: 'text',
      secret: true,
      meaning: 'a bearer token the console accepts (`Authorization: Bearer …`)',
    },
    publicHosts: {
      env: 'CONSOLE_PUBLIC_HOSTS',
      type: 'hosts',
      meaning:
        'names the console is reached by besides the address it listens on (a reverse proxy, a port mapped elsewhere), as `host[:port]`: any other `Host` is refused',
    },
  },
} as const satisfies SettingsTree;

export interface SettingEntry {
  /** Its place in the tree, e.g. ['jobs', 'pollIntervalMs']. */
  path: readonly string[];
  setting: Setting;
}

function flatten(tree: SettingsTree, path: readonly string[]): SettingEntry[] {
  return Object.entries(tree).flatMap(([key, node]) =>
    'env' in node
      ? [{ path: [...path, key], setting: node as Setting }]
      : flatten(node as SettingsTree, [...path, key]),
  );
}

/** Every setting, in the tree's order (that of `--help`, `invoice-mirror config` and the README). */
export const SETTING_LIST: readonly SettingEntry[] = flatten(SETTINGS, []);

/** What a setting's value may be, completing "must be …" (config.ts's messages) and the README's column. */
export function allowedValues(setting: Setting): string {
  switch (setting.type) {
    case 'text':
      return 'any text';
    case 'integer':
      return `a whole number from ${setting.min} to ${setting.max}`;
    case 'flag':
      return 'true or false';
    case 'choice':
      return `one of ${setting.values.join(', ')}`;
    case 'postgres-url':
      return 'a URL like postgres://user@host:5432/database';
    case 'api-url':
      return 'an http(s) URL ending in /api/v1';
    case 'cron':
      return 'a cron expression (5 fields, or 6 with seconds first)';
    case 'duration':
      return `a duration from ${durationText(setting.min)} to ${durationText(setting.max)}, like 90s, 15m, 1h or 1d`;
    case 'schema-name':
      return 'a lower-case Postgres name (letters, digits, _; at most 40 characters)';
    case 'entities':
      return 'entity names, comma-separated, or all';
    case 'hosts':
      return 'host[:port] names, comma-separated (books.example.com,10.0.0.5:80)';
  }
}

/** `15m`, `90s`, `2h`: a duration in milliseconds as the settings write it. */
export function durationText(ms: number): string {
  if (ms === 0) return '0s';
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
