/**
 * The sandbox: an in-process simulation of the invoicing service (FactuurSturen.nl API v1) over
 * real HTTP, with generated data, the service's wire quirks and knobs for faults and limits.
 */
import { adminHandler } from './admin.js';
import { createClock, type SandboxClock } from './clock.js';
import { ENTITIES, type SandboxEntity } from './fields.js';
import type { FaultKind, FaultMatch } from './faults.js';
import { checkKnobs, DEFAULT_KNOBS } from './knobs.js';
import { SandboxServer, type CallRecord, type Knobs } from './server.js';
import type { SandboxStore } from './store.js';
import {
  accountAt,
  Calendar,
  createAccounts,
  maxConcurrency,
  type DataOptions,
  type SandboxAccount,
} from './accounts.js';

export type { SandboxEntity } from './fields.js';
export type { FaultKind } from './faults.js';
export type { CallRecord, Knobs } from './server.js';
export type { SandboxStore, ChurnChange } from './store.js';
export type { SandboxClock } from './clock.js';
export type { SandboxAccount } from './accounts.js';
export { ENTITIES } from './fields.js';
export { accountAt, accountKey, accountUser, MAX_ACCOUNTS, maxConcurrency } from './accounts.js';

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
  /**
   * How many accounts the sandbox serves (default 1, at most 10,000); the Basic auth user name picks
   * one. Account 1 has `user`/`apiKey`, account i ≥ 2 user `sandbox-<i>` and key `sandbox-<i>-key`.
   * Each has its own data (seed + i - 1; `records`, `perEntity` and `sentInvoices` apply to each),
   * quota, faults and call log; the clock and the other knobs are shared.
   */
  accounts?: number;
  /** The credentials of accounts 1, 2, … (default: `user`/`apiKey` for account 1, `sandbox-i` for the others). */
  credentials?: readonly { user: string; apiKey: string }[];
}

/** A running sandbox. `user`, `apiKey`, `failNext`, `resetQuota`, `quotaRemaining` and `store` are account 1's. */
export interface Sandbox {
  readonly url: string;
  readonly user: string;
  readonly apiKey: string;
  /** Every call of every account (and those naming no account), oldest first. */
  readonly calls: CallRecord[];
  /** Empties every call log, the accounts' too. */
  clearCalls(): void;
  maxConcurrency(): number;
  readonly knobs: Knobs;
  failNext(kind: FaultKind | 'quota', count?: number, match?: FaultMatch): void;
  resetQuota(): void;
  readonly quotaRemaining: number;
  readonly clock: SandboxClock;
  readonly store: SandboxStore;
  /** Every account: `accounts[0]` is account 1. */
  readonly accounts: SandboxAccount[];
  /** Account `index`, from 1 (throws for one the sandbox does not have). */
  account(index: number): SandboxAccount;
  close(): Promise<void>;
}

/** Checks of the data options (records, perEntity, sentInvoices); throws an Error naming the bad one. */
function checkDataOptions(options: SandboxOptions): DataOptions {
  const records = options.records ?? 100;
  if (!Number.isInteger(records) || records < 0) throw new Error('records: must be a non-negative integer');
  for (const [e, n] of Object.entries(options.perEntity ?? {})) {
    if (!(ENTITIES as readonly string[]).includes(e)) throw new Error(`perEntity: unknown entity ${e}`);
    if (!Number.isInteger(n) || n! < 0) throw new Error(`perEntity.${e}: must be a non-negative integer`);
  }
  if (options.sentInvoices !== undefined && !(Number.isInteger(options.sentInvoices) && options.sentInvoices >= 0))
    throw new Error('sentInvoices: must be a non-negative integer');
  return { records, perEntity: options.perEntity, sentInvoices: options.sentInvoices };
}

function checkedKnobs(options: SandboxOptions): Knobs {
  return {
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
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const data = checkDataOptions(options);
  const knobs = checkedKnobs(options);
  const count = options.accounts ?? 1;
  let calendar: Calendar | undefined;
  const clock = createClock(options.now ?? '2026-11-01', () => calendar?.tick());
  calendar = new Calendar(clock, data, count);
  const slots = createAccounts(
    {
      count,
      seed: options.seed ?? 1,
      user: options.user ?? 'sandbox',
      apiKey: options.apiKey ?? 'sandbox',
      ...(options.credentials ? { credentials: options.credentials } : {}),
      hourlyQuota: knobs.hourlyQuota,
    },
    calendar,
  );
  // The quota limit follows the knob, so tests can change it at run time (but an account's own limit stays).
  const liveKnobs = new Proxy(knobs, {
    set(target, prop, value) {
      const checked = checkKnobs({ [prop]: value } as Partial<Knobs>);
      Object.assign(target, checked);
      if (prop === 'hourlyQuota') for (const slot of slots) slot.sharedQuota(value as number);
      return true;
    },
  });
  const byUser = new Map(slots.map((slot) => [slot.user, slot]));
  const first = slots[0]!;
  const calls: CallRecord[] = [];
  let sandbox: Sandbox | undefined;
  const server = new SandboxServer({
    knobs: liveKnobs,
    calls,
    accountOf: (user) => byUser.get(user),
    first,
    admin: options.admin ? adminHandler(() => sandbox!) : undefined,
  });
  const host = options.host ?? '127.0.0.1';
  const port = await server.listen(options.port ?? 0, host);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  sandbox = {
    url: `http://${urlHost}:${port}/api/v1`,
    user: first.user,
    apiKey: first.apiKey,
    calls,
    clearCalls() {
      calls.length = 0;
      for (const slot of slots) slot.clearCalls();
    },
    maxConcurrency: () => maxConcurrency(calls),
    knobs: liveKnobs,
    failNext: (kind, count = 1, match) => first.failNext(kind, count, match),
    resetQuota: () => first.resetQuota(),
    get quotaRemaining() {
      return first.quotaRemaining;
    },
    clock,
    store: first.store,
    accounts: slots,
    account: (index) => accountAt(slots, index),
    close: () => server.close(),
  };
  return sandbox;
}
