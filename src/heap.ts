/**
 * How far the JavaScript heap may grow past what is live before V8 collects it in full.
 *
 * V8 lets a small heap grow to four times its live size. A sync handles a few MB of page text
 * per page, so a backfill's peak RSS swung between 250 and 400 MB with about 30 MB live.
 * Growing to twice what is live keeps a 100k-record backfill in pages of 500 at 172–190 MB
 * (2.5 times: 198–211 MB), for no measurable CPU time (bench/README.md). V8 reads the limit at every collection, so setting it at startup suffices.
 */
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWING_PERCENT = 100;

/** True when node was started with its own `--heap-growing-percent` (NODE_OPTIONS may not hold it). */
export function heapGrowthGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg));
}

/** Applies the heap growth limit to this process, unless node was started with one. */
export function limitHeapGrowth(): void {
  if (!heapGrowthGiven(process.execArgv)) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
