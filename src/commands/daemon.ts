import type { Command } from 'commander';
import { servableAccounts } from '../accounts/serve.js';
import { startDaemon } from '../daemon/index.js';
import { newDaemonIdentity } from '../fleet/leases.js';
import { logger } from '../log.js';
import { onStopSignals, withApp } from './context.js';

export function registerDaemonCommand(command: Command): void {
  const identity = newDaemonIdentity();
  command.action(
    withApp({ migrate: 'auto', work: 'daemon', serves: () => [], applicationName: identity.id }, async (app) => {
      // Every active account this daemon cannot serve is named; none at all stops it here (exit code 2).
      const { skipped } = await servableAccounts(app);
      for (const problem of skipped)
        process.stderr.write(`invoice-mirror daemon: ${problem.message}; this daemon leaves it to others\n`);
      const daemon = await startDaemon(app, identity);
      process.stderr.write(
        `invoice-mirror daemon: health on ${daemon.healthUrl}/healthz, metrics on ${daemon.healthUrl}/metrics${app.config.console.inDaemon ? `, console on ${daemon.healthUrl}/` : ''}\n`,
      );
      const removeHandlers = onStopSignals(
        (signal) => void daemon.stop(signal),
        (signal) => {
          // A second signal: leave now. Every write is a transaction, so nothing is half-done.
          logger.warn({ signal }, 'second signal: exiting at once');
          process.exit(130);
        },
      );
      const code = await daemon.stopped;
      removeHandlers();
      return code;
    }),
  );
}
