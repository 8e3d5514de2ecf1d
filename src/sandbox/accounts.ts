/**
 * The sandbox's accounts: the credentials pick one, and each has its own generated data (from its
 * own seed), hourly quota, injected faults and call log. The clock and the other knobs are shared.
 */
import type { SandboxClock } from './clock.js';
import { Faults, Quota, type FaultKind, type FaultMatch } from './faults.js';
import type { SandboxEntity } from './fields.js';
import { checkKnobs } from './knobs.js';
import type { CallRecord, ServedAccount } from './server.js';
import { Account, storeFacade, type SandboxStore } from './store.js';

export const MAX_ACCOUNTS = 10_000;

/** Account i ≥ 2's credentials (account 1 has the sandbox's `user` and `apiKey`). */
export const accountUser = (index: number): string => `sandbox-${index}`;
export const accountKey = (index: number): string => `sandbox-${index}-key`;

/** One account of the sandbox, as tests see it. */
export interface SandboxAccount {
  /** The account's number, from 1: `sandbox.accounts[index - 1]`, `CallRecord.account`, `/_admin/...?account=index`. */
  readonly index: number;
  readonly user: string;
  readonly apiKey: string;
  /** The seed its data is generated from: the sandbox's seed + index - 1. */
  readonly seed: number;
  /** This account's calls (those naming its user), oldest first. */
  readonly calls: CallRecord[];
  clearCalls(): void;
  maxConcurrency(): number;
  failNext(kind: FaultKind | 'quota', count?: number, match?: FaultMatch): void;
  resetQuota(): void;
  readonly quotaRemaining: number;
  /** Its own hourly quota; until set, the shared `knobs.hourlyQuota`. */
  hourlyQuota: number;
  /** Its data (generated on first use). */
  readonly store: SandboxStore;
  /** Whether its data has been generated yet (on its first request or first use of `store`). */
  readonly generated: boolean;
  /** Refuse its key (every call 401, as a key made inactive in the service), or accept it again. */
  refuseKey(on?: boolean): void;
  readonly keyRefused: boolean;
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

/** What every account's data is generated from, but the seed. */
export interface DataOptions {
  records: number;
  perEntity?: Partial<Record<SandboxEntity, number>>;
  sentInvoices?: number;
}

/**
 * Generates accounts' data on demand and keeps the generated ones in step with the clock. Each
 * account's data is as if generated at the start and moved through every clock change since, so
 * generating it late (on its first request) gives the same account as generating it at once.
 */
export class Calendar {
  private readonly startDay: string;
  /** The clock's days since the start, while an account is still to be generated. */
  private readonly days: string[] = [];
  private readonly live: Account[] = [];

  constructor(
    private readonly clock: SandboxClock,
    private readonly data: DataOptions,
    private pending: number,
  ) {
    this.startDay = clock.today();
  }

  /** The clock moved. */
  tick(): void {
    for (const account of this.live) account.onClock();
    const today = this.clock.today();
    if (this.pending > 0 && this.days.at(-1) !== today) this.days.push(today);
  }

  generate(seed: number): Account {
    let day: string | undefined = this.startDay;
    const account = new Account({ seed, ...this.data, today: () => day ?? this.clock.today() });
    for (const past of this.days) {
      day = past;
      account.onClock();
    }
    day = undefined;
    account.onClock();
    this.live.push(account);
    if (--this.pending === 0) this.days.length = 0;
    return account;
  }
}

export class AccountSlot implements SandboxAccount, ServedAccount {
  readonly calls: CallRecord[] = [];
  readonly quota: Quota;
  readonly faults: Faults;
  keyRefused = false;
  /** Its own quota limit, when set; else the shared knob. */
  private ownQuota: number | undefined;
  private account: Account | undefined;
  private facade: SandboxStore | undefined;

  constructor(
    readonly index: number,
    readonly user: string,
    readonly apiKey: string,
    readonly seed: number,
    hourlyQuota: number,
    private readonly calendar: Calendar,
  ) {
    this.quota = new Quota(hourlyQuota);
    this.faults = new Faults(seed);
  }

  data(): Account {
    return (this.account ??= this.calendar.generate(this.seed));
  }

  get generated(): boolean {
    return this.account !== undefined;
  }

  get store(): SandboxStore {
    return (this.facade ??= storeFacade(this.data()));
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  maxConcurrency(): number {
    return maxConcurrency(this.calls);
  }

  failNext(kind: FaultKind | 'quota', count = 1, match?: FaultMatch): void {
    this.faults.plan(kind, count, match);
  }

  resetQuota(): void {
    this.quota.reset();
  }

  get quotaRemaining(): number {
    return this.quota.remaining();
  }

  get hourlyQuota(): number {
    return this.quota.limit;
  }

  set hourlyQuota(limit: number) {
    checkKnobs({ hourlyQuota: limit });
    this.ownQuota = limit;
    this.quota.limit = limit;
  }

  /** The shared knob changed: it applies unless this account has a limit of its own. */
  sharedQuota(limit: number): void {
    if (this.ownQuota === undefined) this.quota.limit = limit;
  }

  refuseKey(on = true): void {
    this.keyRefused = on;
  }
}

/** Account `index` (from 1); an Error naming the range for any other. */
export function accountAt(accounts: readonly SandboxAccount[], index: number): SandboxAccount {
  const account = Number.isInteger(index) ? accounts[index - 1] : undefined;
  if (!account || index < 1)
    throw new Error(`Unknown account ${index}: this sandbox has accounts 1 to ${accounts.length}`);
  return account;
}

export interface AccountsOptions {
  count: number;
  seed: number;
  /** Account 1's credentials. */
  user: string;
  apiKey: string;
  /** Accounts 1, 2, …'s credentials where given (before `user`/`apiKey` and the `sandbox-i` defaults). */
  credentials?: readonly { user: string; apiKey: string }[];
  hourlyQuota: number;
}

/** The accounts, account 1's data generated now and the others' on first use. */
export function createAccounts(options: AccountsOptions, calendar: Calendar): AccountSlot[] {
  const { count, seed } = options;
  if (!Number.isInteger(count) || count < 1 || count > MAX_ACCOUNTS)
    throw new Error(`accounts: must be an integer from 1 to ${MAX_ACCOUNTS}`);
  const slots: AccountSlot[] = [];
  for (let i = 1; i <= count; i++) {
    const given = options.credentials?.[i - 1];
    const user = given?.user ?? (i === 1 ? options.user : accountUser(i));
    const apiKey = given?.apiKey ?? (i === 1 ? options.apiKey : accountKey(i));
    // Seeds wrap at 32 bits, as the generator reads them, so seed 2^32-1 has all its accounts too.
    const own = i === 1 ? seed : (seed + i - 1) % 2 ** 32;
    slots.push(new AccountSlot(i, user, apiKey, own, options.hourlyQuota, calendar));
  }
  // The user name picks the account, so no two accounts may have the same.
  const users = slots.map((slot) => slot.user);
  const twice = users.findIndex((user, i) => users.indexOf(user) !== i);
  if (twice >= 0) throw new Error(`user: "${users[twice]}" is the user name of account ${twice + 1}`);
  slots[0]!.data();
  return slots;
}
