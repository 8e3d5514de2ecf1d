/**
 * The `invoice-mirror` command line: parses arguments and hands each command to its module.
 * Exit codes: 0 success, 1 failure, 2 bad usage or configuration.
 */
import { Command, CommanderError } from 'commander';
import { COMMANDS, EXIT_CODES } from './commands/catalogue.js';
import { SETTING_LIST } from './settings.js';

/**
 * The program with every command listed; only the command named on the command line (or whose
 * help is asked for) is loaded in full, the others are there for `--help`'s list.
 */
export async function buildProgram(version: string, argv: string[] = process.argv): Promise<Command> {
  const program = new Command('invoice-mirror')
    .description(
      'Keeps a Postgres mirror of an invoicing account (FactuurSturen.nl API v1) and runs queued write actions',
    )
    .version(version)
    .showHelpAfterError('(run invoice-mirror --help for usage)')
    .addHelpText('after', () => {
      const width = Math.max(...SETTING_LIST.map(({ setting }) => setting.env.length));
      const settings = SETTING_LIST.map(
        ({ setting }) => `  ${setting.env.padEnd(width)}  ${setting.meaning.replaceAll('`', '')}`,
      );
      return [
        '',
        "Settings (environment variables; 'invoice-mirror config' shows their values and sources):",
        ...settings,
        '',
        `Exit codes: ${EXIT_CODES}`,
        '',
        'Example:',
        '  $ npx invoice-mirror demo        # everything against the built-in sandbox',
        '  $ npx invoice-mirror sync --help # one command in detail',
      ].join('\n');
    })
    .exitOverride();
  const words = argv.slice(2).filter((word) => !word.startsWith('-'));
  const named = words[0] === 'help' ? words[1] : words[0];
  for (const entry of COMMANDS) {
    const command = program.command(entry.name).description(entry.description);
    if (entry.name !== named) continue;
    command.addHelpText('after', `\nExample:\n  $ ${entry.example}\n\nExit codes: ${EXIT_CODES}`);
    (await entry.load())(command);
  }
  for (const command of program.commands) command.exitOverride();
  return program;
}

export async function main(version: string, argv: string[] = process.argv): Promise<number> {
  const program = await buildProgram(version, argv);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; every other commander error is bad usage.
      return error.exitCode === 0 ? 0 : 2;
    }
    return (await import('./commands/context.js')).reportFailure(error);
  }
}

/** Runs the command line and exits with its code. */
export async function run(version: string): Promise<never> {
  // A promise no one waited for that failed is a bug; it still ends the program with one line and
  // a log entry, not a bare stack trace.
  process.on('unhandledRejection', (reason) => {
    void import('./commands/context.js').then(({ reportFailure }) => process.exit(reportFailure(reason)));
  });
  // Output piped to a reader that stopped (`| head`): the rest is not wanted, but the command still
  // finishes and closes the database (and lets the embedded server stop), instead of a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
  process.exit(await main(version));
}
