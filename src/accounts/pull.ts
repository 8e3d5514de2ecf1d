/**
 * Pulling accounts: each account's pull is the sync engine's run for that account, through that
 * account's own client (its own rate gate, hourly budget and quota pause). Several accounts are
 * pulled at once, as the database pool has room; one account's failure (a refused key, a spent
 * quota, a failing list) ends only its own run. A key of its own the service refuses puts the
 * account in state `refused`: no more attempts until a person resumes it.
 */
import PQueue from 'p-queue';
import { pullSession, pullSettings, type App, type Work } from '../app.js';
import type { InvoicingClient } from '../api/index.js';
import { runSync, type SyncOptions, type SyncOutcome } from '../sync/index.js';
import { bindService, unbindService } from './service.js';
import { hasStoredCredentials, markRefused, type Account } from './store.js';

export interface AccountPull {
  account: Account;
  client: InvoicingClient;
  options: SyncOptions;
  allowDeletes?: string[] | 'all';
  work?: Work;
  /** How many accounts are pulled at the same time (for the connections each may use). */
  atOnce?: number;
}

/**
 * One account's pull, from the service its rows come from: an account not bound to one yet is
 * bound to the client's by this pull (and let go again when the service answered nothing, so a
 * mistyped address does not stick); one bound to another service is not pulled (a
 * ServiceMismatchError, before any call). A 401 marks an account with its own key refused; for
 * one that takes the settings it ends this run only (`outcome.refused`).
 */
export async function pullAccount(app: App, pull: AccountPull): Promise<SyncOutcome> {
  const { account, client, options } = pull;
  const { db } = app.database;
  const binding = await bindService(db, account, client.baseUrl);
  const settings = pullSettings(app, { allowDeletes: pull.allowDeletes, work: pull.work, atOnce: pull.atOnce });
  const outcome = await runSync(pullSession(app, client, account), settings, options);
  if (binding.boundNow && !serviceAnswered(outcome)) await unbindService(db, account.id, binding.service);
  if (outcome.refused && hasStoredCredentials(account)) await markRefused(db, account.id, `pull ${outcome.runId}`);
  return outcome;
}

/** Whether anything came from the service: a list read to its end, or records. */
function serviceAnswered(outcome: SyncOutcome): boolean {
  return Object.values(outcome.entities).some(
    (entity) => entity !== undefined && (entity.complete || entity.fetched > 0),
  );
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
