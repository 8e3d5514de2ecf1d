/**
 * Errors the command line turns into one line on stderr and an exit code, without a stack trace.
 * Anything else that reaches the top is a bug and is reported with its stack.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A setting is missing or malformed (exit code 2). */
export class ConfigError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** The command line itself is wrong: unknown argument, bad JSON, bad id (exit code 2). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** An expected failure at run time: unreachable database, failed run, failed job (exit code 1). */
export class RunError extends CliError {
  constructor(message: string) {
    super(message, 1);
  }
}

/**
 * Whether an error says the database connection is gone (a restart, a terminated backend, a
 * server that went away): postgres.js's own codes, and the SQLSTATEs of an ended session.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    [
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECTION_DESTROYED',
      'CONNECT_TIMEOUT',
      'ECONNREFUSED',
      'ECONNRESET',
      'EPIPE',
    ].includes(code) || /^(57P0[1-3]|08\d{3})$/.test(code)
  );
}

/** The message of any thrown value, on one line. */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
