/**
 * The keeper's process (see `keeper-process.ts`): started detached by the first command that needs
 * the embedded server (`embedded-server.ts`), with its options as one JSON argument, its output
 * going to the data directory's `server.log`. Exits 0 when it stopped, or at once when another
 * keeper already keeps the directory.
 */
import module from 'node:module';
import type { KeeperOptions } from './keeper-process.js';

// Node 22.1 and later keep the compiled modules on disk (the command line has its own cache, code-cache.ts).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const options = JSON.parse(process.argv[2] ?? '{}') as KeeperOptions;
if (typeof options.dataDir !== 'string' || typeof options.idleStopMs !== 'number') {
  process.stderr.write('invoice-mirror keeper: started without its options; it is started by invoice-mirror itself\n');
  process.exit(2);
}
const { runKeeper } = await import('./keeper-process.js');
if (!(await runKeeper({ ...options, settings: options.settings ?? [] }))) {
  process.stderr.write(`invoice-mirror keeper [${process.pid}]: another keeper keeps ${options.dataDir}; leaving\n`);
}
process.exit(0);
