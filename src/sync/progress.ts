/**
 * Shows a pull's progress: on a terminal, one live line per entity (records so far and rate),
 * redrawn in place; elsewhere, a log line per entity every few seconds and when it is done.
 */
import type { Logger } from 'pino';
import type { SyncProgress } from './run.js';

const LOG_EVERY_MS = 5000;

export function progressReporter(stream: NodeJS.WriteStream, log: Logger): (progress: SyncProgress) => void {
  if (stream.isTTY) {
    return (p) => {
      const rate = p.elapsedMs > 0 ? Math.round((p.fetched * 1000) / p.elapsedMs) : 0;
      const bar = p.done ? '[   done   ]' : `[${'='.repeat(Math.floor(p.elapsedMs / 250) % 10).padEnd(10)}]`;
      const line = `${p.entity.padEnd(19)} ${bar} ${p.fetched.toLocaleString('en').padStart(9)} records  ${rate.toLocaleString('en').padStart(7)}/s`;
      stream.write(`\r\x1b[2K${line}${p.done ? '\n' : ''}`);
    };
  }
  const lastLogged = new Map<string, number>();
  return (p) => {
    const now = Date.now();
    if (!p.done && now - (lastLogged.get(p.entity) ?? 0) < LOG_EVERY_MS) return;
    lastLogged.set(p.entity, now);
    const rate = p.elapsedMs > 0 ? Math.round((p.fetched * 1000) / p.elapsedMs) : 0;
    log.info({ entity: p.entity, fetched: p.fetched, perSecond: rate, done: p.done }, p.done ? 'pulled' : 'pulling');
  };
}
