/**
 * Pulling accounts: each account's pull is the sync engine's run for that account, through that
 * account's own client (its own rate gate, hourly budget and quota pause). Several accounts are
 * pulled at once, as the database pool has room; one account's failure (a refused key, a spent
 * quota, a failing list) ends only its own run. A key the service refuses puts the account in
 * state `refused`: no more attempts until a person resumes it.
 */
import PQueue from 'p-queue';
import { syncDeps, type App, type Work } from '../app.js';
import type { InvoicingClient } from '../api/index.js';
import { runSync, type SyncOptions, type SyncOutcome } from '../sync/index.js';
import { markRefused, type Account } from './store.js';

export interface AccountPull {
  account: Account;
  client: InvoicingClient;
  options: SyncOptions;
  allowDeletes?: string[] | 'all';
  work?: Work;
  /** How many accounts are pulled at the same time (for the connections each may use). */
  atOnce?: number;
}

/** One account's pull; a 401 marks the account refused. */
export async function pullAccount(app: App, pull: AccountPull): Promise<SyncOutcome> {
  const { account, client, options } = pull;
  const deps = syncDeps(app, client, account, pull.allowDeletes, pull.work, pull.atOnce);
  const outcome = await runSync(deps, options);
  if (outcome.refused) await markRefused(app.database.db, account.id, `pull ${outcome.runId}`);
  return outcome;
}

/**
 * Runs `work` for every account, `atOnce` at a time, and gives each account's result or error in
 * the accounts' order: one account's failure never stops another's work.
 */
export async function forEachAccount<T>(
  accounts: readonly Account[],
  atOnce: number,
  work: (account: Account) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  const queue = new PQueue({ concurrency: Math.max(1, atOnce) });
  return Promise.allSettled(accounts.map((account) => queue.add(() => work(account)) as Promise<T>));
}
