import type { Command } from 'commander';
import { addCommand } from './catalogue.js';
import { startDaemon } from '../daemon/index.js';
import { logger } from '../log.js';
import { withApp } from './context.js';

export function registerDaemonCommand(program: Command): void {
  addCommand(program, 'daemon').action(
    withApp({ migrate: 'auto', work: 'daemon', callsService: true }, async (app) => {
      const daemon = await startDaemon(app);
      process.stderr.write(
        `invoice-mirror daemon: health on ${daemon.healthUrl}/healthz, metrics on ${daemon.healthUrl}/metrics\n`,
      );
      let signals = 0;
      const onSignal = (signal: NodeJS.Signals) => {
        signals++;
        if (signals === 1) {
          void daemon.stop(signal);
          return;
        }
        // A second signal: leave now. Every write is a transaction, so nothing is half-done.
        logger.warn({ signal }, 'second signal: exiting at once');
        process.exit(130);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const code = await daemon.stopped;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      return code;
    }),
  );
}
