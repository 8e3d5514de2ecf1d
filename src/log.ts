/**
 * The process-wide pino logger. Logs go to stderr (stdout is kept for command output), as JSON
 * lines, or human-readable when stderr is a terminal.
 *
 * Credentials never reach the output: known secret values (the API key, the Basic-auth header,
 * the database password) are registered with `registerSecret` and scrubbed from every serialized
 * line, whatever field or message they hide in; passwords in connection URLs are masked by
 * pattern; and fields with credential-like names are redacted by pino.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { SETTINGS } from './settings.js';

/** pino-pretty, only where a person reads the log (stderr is a terminal): it takes about 10 ms to load. */
const pretty = process.stderr.isTTY
  ? (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty'))
  : undefined;

export const LOG_LEVELS = SETTINGS.logLevel.values;
export type LogLevel = (typeof LOG_LEVELS)[number];

const REDACTED = '[REDACTED]';
const secrets = new Set<string>();

/** Published credentials (the built-in sandbox's): scrubbing them would only blank out a word. */
const PUBLIC_CREDENTIALS = new Set(['sandbox']);

/** Remember a credential so that it is scrubbed from every log line and error text. */
export function registerSecret(value: string | undefined | null): void {
  // Very short values would scrub ordinary words; a real key or password is longer.
  if (value && value.length >= 4 && !PUBLIC_CREDENTIALS.has(value)) secrets.add(value);
}

/** `scheme://user:password@host` → `scheme://user:[REDACTED]@host`. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"']*:)([^@\s/"']+)@/gi;
/** `Authorization: Basic …` header values, wherever they show up as text. */
const AUTH_HEADER = /((?:authorization|Basic)["']?\s*[:=]?\s*["']?(?:Basic\s+)?)[A-Za-z0-9+/=]{8,}/g;

/** Remove every known credential from a piece of text. */
export function scrub(text: string): string {
  let out = text.replace(URL_PASSWORD, `$1${REDACTED}@`).replace(AUTH_HEADER, `$1${REDACTED}`);
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // JSON serialization escapes some characters; scrub the escaped form too.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
  }
  return out;
}

const REDACT_PATHS = [
  'apiKey',
  'password',
  'authorization',
  'headers.authorization',
  '*.apiKey',
  '*.password',
  '*.authorization',
  '*.headers.authorization',
];

export function createLogger(options: { level?: LogLevel; destination?: DestinationStream } = {}): Logger {
  const destination =
    options.destination ??
    (pretty
      ? pretty({
          destination: 2,
          sync: true,
          colorize: !process.env.NO_COLOR, // https://no-color.org
          translateTime: 'SYS:HH:MM:ss',
          // The counts a run logs are the summary table a command prints after it: once is enough.
          ignore: 'counts',
        })
      : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      name: 'invoice-mirror',
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      hooks: { streamWrite: scrub },
      base: undefined,
    },
    destination,
  );
}

/** The logger every module uses; its level is set from the configuration at start-up. */
export const logger: Logger = createLogger({
  level:
    (process.env.LOG_LEVEL as LogLevel) && LOG_LEVELS.includes(process.env.LOG_LEVEL as LogLevel)
      ? (process.env.LOG_LEVEL as LogLevel)
      : 'info',
});

export function setLogLevel(level: LevelWithSilent): void {
  logger.level = level;
}
