/**
 * The glue between commander and the program: every command action runs through `action`, which
 * loads the configuration, opens the app when the command needs the database, and turns expected
 * failures into one line on stderr and an exit code.
 */
import { checkPoolSize, openApp, type App, type DatabaseNeeds, type Work } from '../app.js';
import { checkFirstAccount } from '../accounts/serve.js';
import { loadConfig, type Config } from '../config.js';
import { CliError, UsageError, errorMessage, isConnectionLost } from '../errors.js';
import { logger, scrub, setLogLevel } from '../log.js';

export function loadSettings(): Config {
  const config = loadConfig();
  setLogLevel(config.logLevel);
  return config;
}

/** What a command needs, checked or prepared before it runs. */
export interface CommandNeeds<A extends unknown[] = unknown[]> extends DatabaseNeeds {
  /** The connections it holds at once: DB_POOL_SIZE is checked before the database is opened. */
  work?: Work;
  /**
   * It calls the service for accounts: from the command's arguments, the accounts it names (none:
   * every active one). Which credentials that needs depends on the accounts, so the command checks
   * them once the mirror is open, before any call (src/accounts/serve.ts); a mirror that does not
   * exist yet has none, and the `default` its first pull makes is checked before it is created.
   */
  serves?: (...args: A) => readonly string[];
}

/**
 * Wraps a command that works on the mirror database. The settings are checked before any
 * database is opened or created, and so are the credentials of a mirror about to be created;
 * those of an existing mirror's accounts once it is open (see CommandNeeds.serves). `run` returns
 * the exit code, or nothing for success.
 */
export function withApp<A extends unknown[]>(
  needs: CommandNeeds<A>,
  // biome-ignore lint/suspicious/noConfusingVoidType: a command that returns nothing succeeded
  run: (app: App, ...args: A) => Promise<number | void>,
) {
  return async (...args: A): Promise<void> => {
    const config = loadSettings();
    if (needs.work) checkPoolSize(config, needs.work);
    const names = needs.serves?.(...args);
    const firstAccount = names?.length === 0 ? () => checkFirstAccount(config) : undefined;
    const app = await openApp(config, { ...needs, beforeCreating: firstAccount });
    let code: number | undefined;
    try {
      code = (await run(app, ...args)) ?? undefined;
    } finally {
      await app.close();
    }
    if (typeof code === 'number') process.exitCode = code;
  };
}

/** Prints an expected failure as one line; anything else is a bug and keeps its stack. */
export function reportFailure(error: unknown): number {
  if (error instanceof CliError) {
    process.stderr.write(`invoice-mirror: ${scrub(errorMessage(error))}\n`);
    return error.exitCode;
  }
  if (isConnectionLost(error)) {
    // Expected in life (a restart, an ended backend): one line; work in progress is recovered by the next run.
    process.stderr.write(
      `invoice-mirror: lost the database connection (${scrub(errorMessage(error))}); run the command again once the database answers: work in progress is recovered\n`,
    );
    return 1;
  }
  const known = knownFailure(error);
  if (known) {
    logger.debug({ err: error }, 'failure');
    process.stderr.write(`invoice-mirror: ${scrub(known)}\n`);
    return 1;
  }
  // A bug: one line here; the stack with LOG_LEVEL=debug (as a JSON log line on stderr).
  logger.debug({ err: error }, 'unexpected error');
  process.stderr.write(
    `invoice-mirror: unexpected error: ${scrub(errorMessage(error))} (LOG_LEVEL=debug shows where; please report it)\n`,
  );
  return 1;
}

/**
 * Failures that happen in life and have a known remedy, as one line naming the setting or grant
 * to change; undefined for the rest.
 */
function knownFailure(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code === '42501')
    return `the database refused: ${message}; grant the role of DATABASE_URL what it needs (to create the mirror: GRANT CREATE ON DATABASE … TO role; to use it: GRANT USAGE ON SCHEMA and SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA …), or use the role that owns the schema`;
  return undefined;
}

/** Parses a command-line option with a choice list, naming the option when it is wrong. */
export function choice<T extends string>(option: string, allowed: readonly T[]) {
  return (value: string): T => {
    if (!allowed.includes(value as T)) throw new UsageError(`${option}: must be one of ${allowed.join(', ')}`);
    return value as T;
  };
}

/** Parses a positive whole number given on the command line. */
/** Parses a positive whole number given on the command line (at most `max`, by default what an integer column holds). */
export function positiveInteger(name: string, max = 2_147_483_647) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
      throw new UsageError(`${name}: must be a whole number from 1 to ${max}, got '${value}'`);
    }
    return Number(value);
  };
}

/**
 * The first SIGINT or SIGTERM asks the command to stop (`first`); a second one means "now"
 * (`again`, which exits). Returns the function that removes the handlers.
 */
export function onStopSignals(
  first: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
): () => void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => (++signals === 1 ? first(signal) : again(signal));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** Collects a repeatable option's values (`--account a --account b`). */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}
