/**
 * Every setting of invoice-mirror, read from the environment and validated by one zod schema.
 * A bad or missing setting becomes a ConfigError naming the variable, e.g.
 * `INVOICING_API_URL: must be an http(s) URL ending in /api/v1`.
 */
import cron from 'node-cron';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { LOG_LEVELS, registerSecret } from './log.js';
import { ENTITY_NAMES, isEntityName } from './catalog/index.js';

const DEFAULT_API_URL = 'https://www.factuursturen.nl/api/v1';
/** The built-in sandbox's credentials, used when the API URL points at this machine. */
export const SANDBOX_CREDENTIALS = { user: 'sandbox', apiKey: 'sandbox' } as const;

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalText = z.preprocess(blankToUndefined, z.string().optional());

function integer(name: string, min: number, max: number, fallback: number) {
  return z
    .preprocess(
      blankToUndefined,
      z
        .string()
        .optional()
        .transform((text, ctx) => {
          if (text === undefined) return fallback;
          const value = Number(text);
          if (!/^-?\d+$/.test(text.trim()) || value < min || value > max) {
            ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
            return z.NEVER;
          }
          return value;
        }),
    )
    .describe(name);
}

const postgresUrl = z.preprocess(
  blankToUndefined,
  z
    .string()
    .optional()
    .refine((text) => {
      if (text === undefined) return true;
      try {
        const url = new URL(text);
        return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, 'must be a URL like postgres://user@host:5432/database'),
);

const apiUrl = z.preprocess(
  blankToUndefined,
  z
    .string()
    .default(DEFAULT_API_URL)
    .transform((text) => text.replace(/\/+$/, ''))
    .refine((text) => {
      try {
        const url = new URL(text);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname.endsWith('/api/v1');
      } catch {
        return false;
      }
    }, 'must be an http(s) URL ending in /api/v1'),
);

/** `ALLOW_DELETES`: entity names, comma-separated, or `all`. */
const entityList = z.preprocess(
  blankToUndefined,
  z
    .string()
    .optional()
    .transform((text, ctx): string[] | 'all' => {
      if (text === undefined) return [];
      if (text.trim().toLowerCase() === 'all') return 'all';
      const names = text
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      const unknown = names.filter((name) => !isEntityName(name));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown entity '${unknown[0]}' (use all, or some of ${ENTITY_NAMES.join(', ')})`,
        });
        return z.NEVER;
      }
      return names;
    }),
);

/** A yes/no setting: true/false, yes/no, 1/0, on/off. */
const flag = (fallback: boolean) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? blankToUndefined(value.trim().toLowerCase()) : value),
    z
      .enum(['true', 'false', 'yes', 'no', '1', '0', 'on', 'off'], { message: 'must be true or false' })
      .optional()
      .transform((text) => (text === undefined ? fallback : ['true', 'yes', '1', 'on'].includes(text))),
  );

const CRON_FIELDS = ['minute', 'hour', 'day of month', 'month', 'day of week'];

/** Why a cron expression is not one, naming the field that is wrong; null when it is one. */
export function cronProblem(text: string): string | null {
  if (cron.validate(text)) return null;
  const fields = text.trim().split(/\s+/);
  const names = fields.length === 6 ? ['second', ...CRON_FIELDS] : CRON_FIELDS;
  const example = 'e.g. */15 * * * * (every 15 minutes)';
  if (fields.length !== 5 && fields.length !== 6)
    return `"${text}" has ${fields.length} field${fields.length === 1 ? '' : 's'}; a cron expression has 5 (${CRON_FIELDS.join(', ')}), or 6 with seconds first; ${example}`;
  // Each field alone among stars: the first that fails on its own is the wrong one.
  const bad = fields.findIndex((field, i) => !cron.validate(fields.map((_, j) => (j === i ? field : '*')).join(' ')));
  if (bad >= 0) return `"${text}": the ${names[bad]} field '${fields[bad]}' is not valid; ${example}`;
  return `"${text}" is not a cron expression; ${example}`;
}

export const settingsSchema = z.object({
  DATABASE_URL: postgresUrl,
  EMBEDDED_DB_DIR: z.preprocess(blankToUndefined, z.string().default('./.invoice-mirror/db')),
  MIRROR_SCHEMA: z.preprocess(
    blankToUndefined,
    z
      .string()
      .default('invoicing')
      .refine(
        (text) => /^[a-z_][a-z0-9_]{0,39}$/.test(text),
        'must be a lower-case Postgres name (letters, digits, _; at most 40 characters)',
      ),
  ),
  INVOICING_API_URL: apiUrl,
  INVOICING_API_USER: optionalText,
  INVOICING_API_KEY: optionalText,
  SYNC_CRON: z.preprocess(
    blankToUndefined,
    z
      .string()
      .default('*/15 * * * *')
      .superRefine((text, ctx) => {
        const problem = cronProblem(text);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
  ),
  LOG_LEVEL: z.preprocess(
    (value) => (typeof value === 'string' ? blankToUndefined(value.toLowerCase()) : value),
    z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
  HEALTH_HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  HEALTH_PORT: integer('HEALTH_PORT', 0, 65535, 9464),
  PAGE_SIZE: integer('PAGE_SIZE', 1, 10000, 500),
  REQUESTS_PER_HOUR: integer('REQUESTS_PER_HOUR', 0, 1_000_000, 1000),
  REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', 100, 600_000, 30_000),
  SEND_MS_PER_INVOICE: integer('SEND_MS_PER_INVOICE', 0, 60_000, 1500),
  RATE_LIMIT_PAUSE_MS: integer('RATE_LIMIT_PAUSE_MS', 0, 3_600_000, 900_000),
  MAX_RETRIES: integer('MAX_RETRIES', 0, 20, 4),
  JOB_POLL_INTERVAL_MS: integer('JOB_POLL_INTERVAL_MS', 50, 3_600_000, 5000),
  JOB_MAX_ATTEMPTS: integer('JOB_MAX_ATTEMPTS', 1, 100, 5),
  UNKNOWN_OUTCOME_SETTLE_MS: integer('UNKNOWN_OUTCOME_SETTLE_MS', 0, 86_400_000, 900_000),
  SHUTDOWN_TIMEOUT_MS: integer('SHUTDOWN_TIMEOUT_MS', 0, 600_000, 30_000),
  DB_POOL_SIZE: integer('DB_POOL_SIZE', 1, 100, 5),
  AUTO_MIGRATE: flag(true),
  DELETE_GUARD_PERCENT: integer('DELETE_GUARD_PERCENT', 0, 100, 10),
  DELETE_GUARD_ROWS: integer('DELETE_GUARD_ROWS', 0, 1_000_000_000, 5),
  ALLOW_DELETES: entityList,
  RECONCILE_INTERVAL_HOURS: integer('RECONCILE_INTERVAL_HOURS', 1, 24 * 366, 24),
  CONSOLE: flag(true),
  CONSOLE_USER: z.preprocess(blankToUndefined, z.string().default('admin')),
  CONSOLE_PASSWORD: optionalText,
  CONSOLE_TOKEN: optionalText,
});

export interface Config {
  /** Unset: the embedded PostgreSQL server of `embeddedDbDir`. */
  databaseUrl: string | undefined;
  embeddedDbDir: string;
  schema: string;
  dbPoolSize: number;
  /** Whether the commands that migrate (sync, backfill, daemon, jobs run) apply pending migrations. */
  autoMigrate: boolean;
  api: {
    url: string;
    /** Unset when not configured: commands that call the service use `apiCredentials`. */
    user: string | undefined;
    apiKey: string | undefined;
    pageSize: number;
    requestsPerHour: number;
    timeoutMs: number;
    sendMsPerInvoice: number;
    rateLimitPauseMs: number;
    maxRetries: number;
  };
  syncCron: string;
  logLevel: (typeof LOG_LEVELS)[number];
  health: { host: string; port: number };
  jobs: {
    pollIntervalMs: number;
    maxAttempts: number;
    /** After a call of unknown outcome, how long before a check may conclude it did not happen (jobs/settle.ts). */
    settleMs: number;
  };
  shutdownTimeoutMs: number;
  /** The delete safeguard (see src/sync/safeguard.ts). */
  deletes: DeletePolicy;
  /** Hours after which a sync pulls an incremental entity (invoices) in full again. */
  reconcileIntervalHours: number;
  /** The web console: served by the daemon (unless off) and by `invoice-mirror console`. */
  console: ConsoleSettings;
}

export interface ConsoleSettings {
  /** Whether the daemon serves it beside /healthz and /metrics. */
  inDaemon: boolean;
  /** Basic auth (user and password) and/or a bearer token; required off loopback. */
  user: string;
  password: string | undefined;
  token: string | undefined;
}

/**
 * When a complete pull may mark records deleted at once: unless more than `maxPercent` % of an
 * entity's live rows and more than `maxRows` rows would go (or every row), or the entity is in
 * `allow` (`all`: every entity). Held deletes wait for the next complete pull to confirm them.
 */
export interface DeletePolicy {
  maxPercent: number;
  maxRows: number;
  allow: string[] | 'all';
}

/** True for a host name or address of this machine only (localhost, 127.x.x.x, ::1). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127\./.test(bare);
}

/** True when the URL points at this machine, where only the built-in sandbox is expected. */
export function isLocalUrl(url: string): boolean {
  return isLoopback(new URL(url).hostname);
}

/**
 * Reads and validates the settings. Throws ConfigError with one line naming the first bad
 * setting. Credentials found are registered with the logger so they never appear in output.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${String(issue.path[0] ?? 'settings')}: ${issue.message}`);
  }
  const s = parsed.data;
  if (s.DATABASE_URL) registerSecret(decodeURIComponent(new URL(s.DATABASE_URL).password));

  let user = s.INVOICING_API_USER;
  let apiKey = s.INVOICING_API_KEY;
  if (isLocalUrl(s.INVOICING_API_URL)) {
    user ??= SANDBOX_CREDENTIALS.user;
    apiKey ??= SANDBOX_CREDENTIALS.apiKey;
  }
  registerSecret(apiKey);
  registerSecret(s.CONSOLE_PASSWORD);
  registerSecret(s.CONSOLE_TOKEN);
  if (s.CONSOLE_PASSWORD) registerSecret(Buffer.from(`${s.CONSOLE_USER}:${s.CONSOLE_PASSWORD}`).toString('base64'));
  if (user && apiKey) registerSecret(Buffer.from(`${user}:${apiKey}`).toString('base64'));

  return {
    databaseUrl: s.DATABASE_URL,
    embeddedDbDir: s.EMBEDDED_DB_DIR,
    schema: s.MIRROR_SCHEMA,
    dbPoolSize: s.DB_POOL_SIZE,
    autoMigrate: s.AUTO_MIGRATE,
    api: {
      url: s.INVOICING_API_URL,
      user,
      apiKey,
      pageSize: s.PAGE_SIZE,
      requestsPerHour: s.REQUESTS_PER_HOUR,
      timeoutMs: s.REQUEST_TIMEOUT_MS,
      sendMsPerInvoice: s.SEND_MS_PER_INVOICE,
      rateLimitPauseMs: s.RATE_LIMIT_PAUSE_MS,
      maxRetries: s.MAX_RETRIES,
    },
    syncCron: s.SYNC_CRON,
    logLevel: s.LOG_LEVEL,
    health: { host: s.HEALTH_HOST, port: s.HEALTH_PORT },
    jobs: {
      pollIntervalMs: s.JOB_POLL_INTERVAL_MS,
      maxAttempts: s.JOB_MAX_ATTEMPTS,
      settleMs: s.UNKNOWN_OUTCOME_SETTLE_MS,
    },
    shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT_MS,
    deletes: { maxPercent: s.DELETE_GUARD_PERCENT, maxRows: s.DELETE_GUARD_ROWS, allow: s.ALLOW_DELETES },
    reconcileIntervalHours: s.RECONCILE_INTERVAL_HOURS,
    console: { inDaemon: s.CONSOLE, user: s.CONSOLE_USER, password: s.CONSOLE_PASSWORD, token: s.CONSOLE_TOKEN },
  };
}

/** The service credentials, for commands that call the service; a ConfigError when missing. */
export function apiCredentials(config: Config): { user: string; apiKey: string } {
  const { user, apiKey } = config.api;
  if (!user) throw new ConfigError('INVOICING_API_USER: is required (the account user name of the invoicing service)');
  if (!apiKey) throw new ConfigError('INVOICING_API_KEY: is required (the API key of the invoicing service)');
  return { user, apiKey };
}
