/**
 * The sandbox: an in-process simulation of the invoicing service (FactuurSturen.nl API v1) over
 * real HTTP, with generated data, the service's wire quirks and knobs for faults and limits.
 */
import { adminHandler } from './admin.js';
import { createClock, type SandboxClock } from './clock.js';
import { ENTITIES, type SandboxEntity } from './fields.js';
import { Faults, Quota, type FaultKind, type FaultMatch } from './faults.js';
import { checkKnobs, DEFAULT_KNOBS } from './knobs.js';
import { SandboxServer, type CallRecord, type Knobs } from './server.js';
import { Account, storeFacade, type SandboxStore } from './store.js';

export type { SandboxEntity } from './fields.js';
export type { FaultKind } from './faults.js';
export type { CallRecord, Knobs } from './server.js';
export type { SandboxStore, ChurnChange } from './store.js';
export type { SandboxClock } from './clock.js';
export { ENTITIES } from './fields.js';

export interface SandboxOptions {
  records?: number;
  perEntity?: Partial<Record<SandboxEntity, number>>;
  /** Invoices already sent when the sandbox starts (default: as many as saved invoices, at most 500). */
  sentInvoices?: number;
  seed?: number;
  host?: string;
  port?: number;
  user?: string;
  apiKey?: string;
  latencyMs?: number;
  failureRate?: number;
  failureKinds?: FaultKind[];
  hourlyQuota?: number;
  sendMsPerInvoice?: number;
  defaultPageSize?: number;
  maxPageSize?: number;
  ignorePaging?: boolean | string[];
  hangMs?: number;
  now?: Date | string;
  admin?: boolean;
}

export interface Sandbox {
  readonly url: string;
  readonly user: string;
  readonly apiKey: string;
  readonly calls: CallRecord[];
  clearCalls(): void;
  maxConcurrency(): number;
  readonly knobs: Knobs;
  failNext(kind: FaultKind | 'quota', count?: number, match?: FaultMatch): void;
  resetQuota(): void;
  readonly quotaRemaining: number;
  readonly clock: SandboxClock;
  readonly store: SandboxStore;
  close(): Promise<void>;
}

/** The most calls ever in flight at once; a call still in flight counts until now. */
export function maxConcurrency(calls: readonly CallRecord[]): number {
  const events: [number, number][] = [];
  for (const c of calls) {
    events.push([c.startedAt, 1]);
    events.push([c.endedAt, -1]);
  }
  // Ends sort before starts at the same instant: back-to-back calls do not overlap.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, d] of events) {
    now += d;
    if (now > max) max = now;
  }
  return max;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const records = options.records ?? 100;
  if (!Number.isInteger(records) || records < 0) throw new Error('records: must be a non-negative integer');
  for (const [e, n] of Object.entries(options.perEntity ?? {})) {
    if (!(ENTITIES as readonly string[]).includes(e)) throw new Error(`perEntity: unknown entity ${e}`);
    if (!Number.isInteger(n) || n! < 0) throw new Error(`perEntity.${e}: must be a non-negative integer`);
  }
  const seed = options.seed ?? 1;
  const knobs: Knobs = {
    ...DEFAULT_KNOBS,
    failureKinds: [...DEFAULT_KNOBS.failureKinds],
    ...checkKnobs({
      latencyMs: options.latencyMs,
      failureRate: options.failureRate,
      failureKinds: options.failureKinds,
      hourlyQuota: options.hourlyQuota,
      sendMsPerInvoice: options.sendMsPerInvoice,
      defaultPageSize: options.defaultPageSize,
      maxPageSize: options.maxPageSize,
      ignorePaging: options.ignorePaging,
      hangMs: options.hangMs,
    }),
  };
  const quota = new Quota(knobs.hourlyQuota);
  // The quota limit follows the knob, so tests can change it at run time.
  const liveKnobs = new Proxy(knobs, {
    set(target, prop, value) {
      const checked = checkKnobs({ [prop]: value } as Partial<Knobs>);
      Object.assign(target, checked);
      if (prop === 'hourlyQuota') quota.limit = value as number;
      return true;
    },
  });
  let account: Account | undefined;
  const clock = createClock(options.now ?? '2026-11-01', () => account?.onClock());
  if (options.sentInvoices !== undefined && !(Number.isInteger(options.sentInvoices) && options.sentInvoices >= 0))
    throw new Error('sentInvoices: must be a non-negative integer');
  account = new Account({
    seed,
    records,
    perEntity: options.perEntity,
    sentInvoices: options.sentInvoices,
    today: () => clock.today(),
  });
  const faults = new Faults(seed);
  const calls: CallRecord[] = [];
  const user = options.user ?? 'sandbox';
  const apiKey = options.apiKey ?? 'sandbox';
  let sandbox: Sandbox | undefined;
  const server = new SandboxServer({
    account,
    knobs: liveKnobs,
    quota,
    faults,
    calls,
    user,
    apiKey,
    admin: options.admin ? adminHandler(() => sandbox!) : undefined,
  });
  const host = options.host ?? '127.0.0.1';
  const port = await server.listen(options.port ?? 0, host);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  sandbox = {
    url: `http://${urlHost}:${port}/api/v1`,
    user,
    apiKey,
    calls,
    clearCalls: () => void (calls.length = 0),
    maxConcurrency: () => maxConcurrency(calls),
    knobs: liveKnobs,
    failNext: (kind, count = 1, match) => faults.plan(kind, count, match),
    resetQuota: () => quota.reset(),
    get quotaRemaining() {
      return quota.remaining();
    },
    clock,
    store: storeFacade(account),
    close: () => server.close(),
  };
  return sandbox;
}
