/**
 * The command line, as the bundle dist/cli/main.cjs that cli.ts runs: everything is in
 * `program.ts`, which loads only the command that runs.
 */
import { run } from './program.js';
import { packageVersion } from './version.js';

void run(packageVersion());
