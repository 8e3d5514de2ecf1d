import type { Command } from 'commander';
import { createServer } from 'node:http';
import { checkConsoleAccess, consoleListener, listen } from '../console/index.js';
import { syncPeriodMs } from '../daemon/schedule.js';
import { onStopSignals, positiveInteger, withApp } from './context.js';

/** `invoice-mirror console`: the web console on its own, until Ctrl-C. */
export function registerConsoleCommand(command: Command): void {
  command
    .option(
      '--host <host>',
      'address to listen on; any but loopback needs CONSOLE_PASSWORD or CONSOLE_TOKEN',
      '127.0.0.1',
    )
    .option('--port <port>', 'port to listen on (0: any free port)', positiveIntegerOrZero, 9465)
    .action(
      withApp({}, async (app, options: { host: string; port: number }) => {
        checkConsoleAccess(options.host, app.config.console, '--host');
        const server = createServer(
          consoleListener({
            db: app.database.db,
            settings: app.config.console,
            maxAttempts: app.config.jobs.maxAttempts,
            attention: () => ({ periodMs: syncPeriodMs(app.config) }),
            worker: false, // jobs queued here wait for a daemon or `jobs run`; every page says so
            sellers: app.config.exports.sellers,
          }),
        );
        await listen(server, options.host, options.port, '--port');
        const address = server.address();
        const port = typeof address === 'object' && address ? address.port : options.port;
        const host = options.host.includes(':') ? `[${options.host}]` : options.host;
        process.stderr.write(`invoice-mirror console: http://${host}:${port}/ (Ctrl-C to stop)\n`);
        await new Promise<void>((resolve) => {
          const removeHandlers = onStopSignals(
            () => {
              removeHandlers();
              server.close(() => resolve());
              server.closeAllConnections();
            },
            () => process.exit(130),
          );
        });
      }),
    );
}

function positiveIntegerOrZero(text: string): number {
  return text === '0' ? 0 : positiveInteger('--port', 65535)(text);
}
