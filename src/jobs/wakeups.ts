/**
 * Waking the runners of a process when a job is queued. The trigger of 0001 notifies
 * `<schema>_jobs` with the job's id (on insert, and when a retry or a backoff queues it again);
 * the channel stays one for every account, and the database handle holds one listening
 * connection for it however many subscribe (db/connect.ts). The runners of a process subscribe
 * here, and a notification wakes only the runners of the job's account, looked up by its id once
 * (with a thousand accounts, waking every runner would make each claim in vain). When it cannot
 * tell (the look-up failed, a payload that is not an id) it wakes them all: a runner that wakes
 * and finds nothing is harmless. Every (re)subscription wakes them all too, since jobs may have
 * been queued while it could not hear.
 */
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../db/index.js';
import { errorMessage } from '../errors.js';

type Wake = () => void;

class WakeupHub {
  private readonly byAccount = new Map<number, Set<Wake>>();
  private unlisten: Promise<(() => Promise<void>) | undefined> | undefined;

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
    const channel = `${this.database.schema}_jobs`;
    this.unlisten = this.database
      .listen(
        channel,
        (payload) => void this.route(payload),
        () => this.wakeAll(),
      )
      .catch((error: unknown) => {
        this.log.warn({ channel, error: errorMessage(error) }, 'cannot LISTEN for new jobs; polling only');
        return undefined;
      });
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

  private async route(payload: string): Promise<void> {
    const id = Number(payload);
    if (!Number.isSafeInteger(id) || this.byAccount.size === 1) return this.wakeAll();
    try {
      const { rows } = await sql<{ account_id: number }>`
        select account_id from jobs where id = ${id}`.execute(this.database.db);
      const account = rows[0]?.account_id;
      if (account !== undefined) for (const wake of this.byAccount.get(Number(account)) ?? []) wake();
    } catch {
      this.wakeAll();
    }
  }

  private wakeAll(): void {
    for (const wakes of this.byAccount.values()) for (const wake of wakes) wake();
  }
}

const hubs = new WeakMap<DatabaseHandle, WakeupHub>();

/**
 * Calls `wake` when a job of the account may have become runnable (see the module comment).
 * Returns the function that unsubscribes.
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
