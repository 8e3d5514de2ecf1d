/**
 * Shows a pull's progress as counters that are true: records and pages so far, the rate, the time
 * elapsed, and the records expected where the last complete pull tells. On a terminal one line
 * per entity is redrawn in place and ends `done`, `stopped` or `failed`; elsewhere a log line per entity
 * every few seconds and when it is over.
 */
import type { Logger } from 'pino';
import { grouped, plural } from '../format.js';
import type { SyncProgress } from './types.js';

const LOG_EVERY_MS = 5000;

/** `12,500 of 20,000 records (62 %), 25 pages, 3,400/s, 3.7 s`. */
export function progressText(p: SyncProgress): string {
  const rate = p.elapsedMs > 0 ? Math.round((p.fetched * 1000) / p.elapsedMs) : 0;
  const records =
    p.expected !== null && p.expected > 0
      ? `${grouped(p.fetched)} of ${plural(p.expected, 'record')} (${Math.min(100, Math.round((p.fetched * 100) / p.expected))} %)`
      : plural(p.fetched, 'record');
  return `${records}, ${plural(p.pages, 'page')}, ${grouped(rate)}/s, ${(p.elapsedMs / 1000).toFixed(1)} s`;
}

export function progressReporter(stream: NodeJS.WriteStream, log: Logger): (progress: SyncProgress) => void {
  if (stream.isTTY) {
    return (p) => {
      const state = p.state === 'pulling' ? '' : `  ${p.state}`;
      stream.write(`\r\x1b[2K${p.entity.padEnd(19)} ${progressText(p)}${state}${p.state === 'pulling' ? '' : '\n'}`);
    };
  }
  const lastLogged = new Map<string, number>();
  return (p) => {
    const now = performance.now();
    if (p.state === 'pulling' && now - (lastLogged.get(p.entity) ?? Number.NEGATIVE_INFINITY) < LOG_EVERY_MS) return;
    lastLogged.set(p.entity, now);
    const fields = { entity: p.entity, fetched: p.fetched, pages: p.pages, expected: p.expected, state: p.state };
    log.info(fields, `${p.entity}: ${progressText(p)}${p.state === 'pulling' ? '' : `, ${p.state}`}`);
  };
}
