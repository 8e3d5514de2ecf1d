/**
 * Waking the runners of a process when a job is queued. The `jobs_notify` trigger raises a bare
 * notification on the jobs channel (db/channels.ts) when a job is queued (on insert, and when a
 * retry or a backoff queues it again); it names neither the job nor its account, which a confined
 * role must not learn. The database handle holds one listening connection for it however many
 * subscribe (db/connect.ts). The runners of a process subscribe here, and a notification, a
 * forged one included, costs one query: which of the subscribed accounts (active ones) have a
 * queued job, and when its first is due. Only their runners are woken (with a thousand accounts,
 * waking every runner would make each claim in vain), and a job due later only brings a runner's
 * next look forward. Notifications that come while that query runs are answered by one more. When
 * the query fails it wakes them all: a runner that wakes and finds nothing is harmless. Every
 * (re)subscription looks too, since jobs may have been queued while it could not hear.
 */
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { Coalesced } from '../coalesced.js';
import { listenFor } from '../db/channels.js';
import type { DatabaseHandle } from '../db/index.js';

/** Called with how soon the account's first queued job is due (0: now). */
export type Wake = (dueInMs: number) => void;

class WakeupHub {
  private readonly byAccount = new Map<number, Set<Wake>>();
  private unlisten: Promise<() => Promise<void>> | undefined;
  private readonly looks = new Coalesced(() => this.lookOnce());

  constructor(
    private readonly database: DatabaseHandle,
    private readonly log: Logger,
  ) {}

  get empty(): boolean {
    return this.byAccount.size === 0;
  }

  add(accountId: number, wake: Wake): void {
    const wakes = this.byAccount.get(accountId) ?? new Set<Wake>();
    this.byAccount.set(accountId, wakes.add(wake));
    if (this.unlisten) return;
    const look = () => this.looks.ask();
    this.unlisten = listenFor(this.database, 'jobs', look, this.log, look);
  }

  /** Removes a runner; the last one out stops listening. */
  async remove(accountId: number, wake: Wake): Promise<void> {
    const wakes = this.byAccount.get(accountId);
    wakes?.delete(wake);
    if (wakes?.size === 0) this.byAccount.delete(accountId);
    if (!this.empty) return;
    const unlisten = await this.unlisten;
    this.unlisten = undefined;
    await unlisten?.().catch(() => undefined);
  }

  private async lookOnce(): Promise<void> {
    const ids = [...this.byAccount.keys()];
    if (ids.length === 0) return;
    try {
      const { rows } = await sql<{ account_id: number; due_in_ms: number }>`
        select j.account_id, greatest(0, extract(epoch from min(j.run_after) - now()) * 1000)::float8 as due_in_ms
          from jobs j join accounts a on a.id = j.account_id and a.state = 'active'
         where j.status = 'queued' and j.account_id = any (${ids}::integer[])
         group by j.account_id`.execute(this.database.db);
      for (const row of rows) for (const wake of this.byAccount.get(Number(row.account_id)) ?? []) wake(row.due_in_ms);
    } catch {
      for (const wakes of this.byAccount.values()) for (const wake of wakes) wake(0);
    }
  }
}

const hubs = new WeakMap<DatabaseHandle, WakeupHub>();

/**
 * Calls `wake` when a job of the account may have become runnable or been queued for later (see
 * the module comment). Returns the function that unsubscribes.
 */
export function subscribeWakeups(
  database: DatabaseHandle,
  accountId: number,
  wake: Wake,
  log: Logger,
): () => Promise<void> {
  let hub = hubs.get(database);
  if (!hub) {
    hub = new WakeupHub(database, log);
    hubs.set(database, hub);
  }
  const mine = hub;
  mine.add(accountId, wake);
  return async () => {
    // Forget an emptied hub at once, so a runner started meanwhile gets a listening one of its own.
    const removal = mine.remove(accountId, wake);
    if (mine.empty && hubs.get(database) === mine) hubs.delete(database);
    await removal;
  };
}
