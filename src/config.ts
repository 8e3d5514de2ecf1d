/**
 * Reads the settings (src/settings.ts describes each) from the environment and validates them
 * with one zod schema, derived from that table. A bad or missing setting becomes a ConfigError
 * naming the variable, e.g. `INVOICING_API_URL: must be an http(s) URL ending in /api/v1`.
 */
import cron from 'node-cron';
import * as z from 'zod';
import { ConfigError } from './errors.js';
import { registerSecret } from './log.js';
import { ENTITY_NAMES, isEntityName } from './catalog/index.js';
import {
  allowedValues,
  SETTING_LIST,
  type SETTINGS,
  type Setting,
  type SettingValue,
  type ValuesOf,
} from './settings.js';

/** The built-in sandbox's credentials, used when the API URL points at this machine. */
export const SANDBOX_CREDENTIALS = { user: 'sandbox', apiKey: 'sandbox' } as const;

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
/** The variable's text, or undefined when unset or blank (so the default applies). */
const given = z.preprocess(blankToUndefined, z.string().optional());
const lowerCase = (value: unknown) => (typeof value === 'string' ? blankToUndefined(value.toLowerCase()) : value);

function isUrl(text: string, protocols: string[], check: (url: URL) => boolean): boolean {
  try {
    const url = new URL(text);
    return protocols.includes(url.protocol) && check(url);
  } catch {
    return false;
  }
}

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

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `15m`, `1.5h`, `1d`, or plain milliseconds, in milliseconds; null when it is none of those. */
export function durationMs(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(text.trim());
  if (!match) return null;
  return Math.round(Number(match[1]) * DURATION_UNITS[(match[2] ?? 'ms').toLowerCase()]!);
}

type Parsers = {
  [T in Setting['type']]: (
    setting: Extract<Setting, { type: T }>,
    mustBe: string,
  ) => z.ZodType<SettingValue<Extract<Setting, { type: T }>>>;
};

/** Each type's parser; `mustBe` is the message for a value that is not allowed. */
const PARSERS: Parsers = {
  text: (setting) => given.transform((text) => text ?? setting.default),
  integer: ({ min, max, default: fallback }, mustBe) =>
    given.transform((text, ctx) => {
      if (text === undefined) return fallback;
      const value = Number(text);
      if (!/^-?\d+$/.test(text.trim()) || value < min || value > max) {
        ctx.addIssue({ code: 'custom', message: mustBe });
        return z.NEVER;
      }
      return value;
    }),
  flag: (setting, mustBe) =>
    z.preprocess(
      (value) => lowerCase(typeof value === 'string' ? value.trim() : value),
      z
        .enum(['true', 'false', 'yes', 'no', '1', '0', 'on', 'off'], { message: mustBe })
        .optional()
        .transform((text) => (text === undefined ? setting.default : ['true', 'yes', '1', 'on'].includes(text))),
    ),
  choice: (setting, mustBe) =>
    z.preprocess(
      lowerCase,
      z.enum(setting.values as [string, ...string[]], { message: mustBe }).default(setting.default),
    ),
  'postgres-url': (_, mustBe) =>
    given.refine(
      (text) => text === undefined || isUrl(text, ['postgres:', 'postgresql:'], (url) => url.hostname !== ''),
      mustBe,
    ),
  'api-url': (setting, mustBe) =>
    z.preprocess(
      blankToUndefined,
      z
        .string()
        .default(setting.default)
        .transform((text) => text.replace(/\/+$/, ''))
        .refine((text) => isUrl(text, ['http:', 'https:'], (url) => url.pathname.endsWith('/api/v1')), mustBe),
    ),
  cron: () =>
    z.preprocess(
      blankToUndefined,
      z
        .string()
        .optional()
        .superRefine((text, ctx) => {
          const problem = text === undefined ? null : cronProblem(text);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    ),
  duration: ({ min, max, default: fallback }, mustBe) =>
    given.transform((text, ctx) => {
      if (text === undefined) return fallback;
      const ms = durationMs(text);
      if (ms === null || ms < min || ms > max) {
        ctx.addIssue({ code: 'custom', message: mustBe });
        return z.NEVER;
      }
      return ms;
    }),
  'schema-name': (setting, mustBe) =>
    z.preprocess(
      blankToUndefined,
      z
        .string()
        .default(setting.default)
        .refine((text) => /^[a-z_][a-z0-9_]{0,39}$/.test(text), mustBe),
    ),
  entities: () =>
    given.transform((text, ctx): string[] | 'all' => {
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
  hosts: hostsParser,
};

/** A host name, an IPv4 address or a bracketed IPv6 address, with an optional port: what a `Host` header holds. */
const HOST_PORT = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)(:\d{1,5})?$/;

function hostsParser(_setting: Setting, mustBe: string): z.ZodType<string[]> {
  return given.transform((text, ctx) => {
    if (text === undefined) return [];
    const hosts = text
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean);
    const bad = hosts.find((host) => !HOST_PORT.test(host) || Number(host.split(':').pop()) > 65535);
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `'${bad}' is not a host[:port]; ${mustBe.replace(/^must be /, 'give ')}`,
      });
      return z.NEVER;
    }
    return hosts;
  });
}

function parserOf(setting: Setting): z.ZodType {
  const parser = PARSERS[setting.type] as (setting: Setting, mustBe: string) => z.ZodType;
  return parser(setting, `must be ${allowedValues(setting)}`);
}

/** Every setting's parser, by environment variable. */
export const settingsSchema = z.object(
  Object.fromEntries(SETTING_LIST.map(({ setting }) => [setting.env, parserOf(setting)])),
);

/** The settings as the program uses them: the tree of src/settings.ts, each with its value. */
export type Config = ValuesOf<typeof SETTINGS>;

/** The web console: served by the daemon (unless off) and by `invoice-mirror console`. */
export type ConsoleSettings = Config['console'];

/**
 * When a complete pull may mark records deleted at once: unless more than `maxPercent` % of an
 * entity's live rows and more than `maxRows` rows would go (or every row), or the entity is in
 * `allow` (`all`: every entity). Held deletes wait for a person (`sync --allow-deletes`, the
 * console's Release), or for complete pulls spanning `confirmHours` hours when that is set.
 */
export type DeletePolicy = Config['deletes'];

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
  const values: Record<string, unknown> = parsed.data;
  const tree: Record<string, any> = {};
  for (const { path, setting } of SETTING_LIST) {
    let node = tree;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    node[path.at(-1)!] = values[setting.env];
    if (setting.secret) registerSecret(values[setting.env] as string | undefined);
  }
  const config = tree as Config;

  for (const url of [config.databaseUrl, config.sqlDatabaseUrl])
    if (url) registerSecret(decodeURIComponent(new URL(url).password));
  const { api } = config;
  if (isLocalUrl(api.url)) {
    api.user ??= SANDBOX_CREDENTIALS.user;
    api.apiKey ??= SANDBOX_CREDENTIALS.apiKey;
  }
  // The Authorization headers these make, as they would show in a dumped request.
  const { user, password } = config.console;
  if (password) registerSecret(Buffer.from(`${user}:${password}`).toString('base64'));
  if (api.user && api.apiKey) registerSecret(Buffer.from(`${api.user}:${api.apiKey}`).toString('base64'));
  return config;
}

/** The service credentials, for commands that call the service; a ConfigError when missing. */
export function apiCredentials(config: Config): { user: string; apiKey: string } {
  const { user, apiKey } = config.api;
  if (!user) throw new ConfigError('INVOICING_API_USER: is required (the account user name of the invoicing service)');
  if (!apiKey) throw new ConfigError('INVOICING_API_KEY: is required (the API key of the invoicing service)');
  return { user, apiKey };
}
