/** Hourly quota and injected faults: deterministic (seeded) so a failing test fails the same way again. */
import { mixSeed, mulberry32, type Rng } from './prng.js';

/**
 * What a faulty answer looks like:
 * - `500`: a plain-text server error; `html500`: a server error as an HTML page (a proxy's);
 * - `drop`: the connection is closed without an answer; `hang`: no answer until `hangMs`, then dropped;
 * - `lost`: the call is carried out, but its answer never comes (held until `hangMs`, then dropped);
 * - `malformed`: a 200 whose JSON is cut short (with a matching Content-Length);
 * - `truncated`: the answer's Content-Length announces the whole body, the connection closes halfway;
 * - `html200`: a 200 with an HTML page instead of JSON (a login or maintenance page);
 * - `empty`: a 200 with an empty list `[]` where a list was asked for;
 * - `duplicate`: a list page that carries its first record twice (the copy with a changed field);
 * - `error200`: a 200 with an error object `{"error": {"message", "code"}}` instead of the data
 *   (nothing is done, as with the other error answers);
 * - `bom`: the answer as usual, its JSON preceded by a UTF-8 byte order mark.
 */
export type FaultKind =
  | '500'
  | 'drop'
  | 'hang'
  | 'lost'
  | 'malformed'
  | 'truncated'
  | 'html500'
  | 'html200'
  | 'empty'
  | 'duplicate'
  | 'error200'
  | 'bom';
export const FAULT_KINDS: readonly FaultKind[] = [
  '500',
  'drop',
  'hang',
  'lost',
  'malformed',
  'truncated',
  'html500',
  'html200',
  'empty',
  'duplicate',
  'error200',
  'bom',
];
/** The faults `failureRate` picks from by default: those a client must retry its way through. */
export const RANDOM_FAULT_KINDS: readonly FaultKind[] = ['500', 'drop', 'hang', 'malformed'];

export interface FaultMatch {
  method?: string;
  pathPrefix?: string;
}

interface Planned {
  kind: FaultKind | 'quota';
  left: number;
  match?: FaultMatch;
}

const HOUR_MS = 3_600_000;

export class Quota {
  private used = 0;
  private windowStart: number | undefined;

  constructor(public limit: number) {}

  private roll(now: number): void {
    if (this.windowStart !== undefined && now - this.windowStart >= HOUR_MS) {
      this.windowStart = undefined;
      this.used = 0;
    }
  }

  /** Count a call; false when the hour's quota is spent (the call is then not counted). */
  take(now = Date.now()): boolean {
    this.roll(now);
    if (this.used >= this.limit) return false;
    this.windowStart ??= now;
    this.used++;
    return true;
  }

  remaining(now = Date.now()): number {
    this.roll(now);
    return Math.max(0, this.limit - this.used);
  }

  /** The header value: an unlimited sandbox still shows a (large) number, as the service always does. */
  header(): string {
    const r = this.remaining();
    return Number.isFinite(r) ? String(r) : '1000000';
  }

  reset(): void {
    this.used = 0;
    this.windowStart = undefined;
  }
}

export class Faults {
  private planned: Planned[] = [];
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = mulberry32(mixSeed(seed, 0xfa17));
  }

  plan(kind: FaultKind | 'quota', count = 1, match?: FaultMatch): void {
    if (kind !== 'quota' && !FAULT_KINDS.includes(kind)) throw new Error(`unknown fault kind: ${String(kind)}`);
    if (!Number.isInteger(count) || count < 1) throw new Error('failNext: count must be a positive integer');
    this.planned.push({ kind, left: count, match });
  }

  clear(): void {
    this.planned = [];
  }

  /** A planned fault matching this call (consumed), else a random one by `rate`, else none. */
  decide(method: string, path: string, rate: number, kinds: readonly FaultKind[]): FaultKind | 'quota' | undefined {
    const i = this.planned.findIndex(
      (p) =>
        (!p.match?.method || p.match.method.toUpperCase() === method) &&
        (!p.match?.pathPrefix || path.startsWith(p.match.pathPrefix)),
    );
    if (i >= 0) {
      const p = this.planned[i]!;
      if (--p.left <= 0) this.planned.splice(i, 1);
      return p.kind;
    }
    if (rate > 0 && kinds.length > 0 && this.rng() < rate) return kinds[Math.floor(this.rng() * kinds.length)];
    return undefined;
  }
}
