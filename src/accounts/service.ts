/**
 * The service an account is bound to: the API address its rows and jobs come from
 * (`accounts.service_url`, migrations/0018_account_service.ts). It is bound when the account is
 * added (its api_url, or INVOICING_API_URL at the time) or by its first pull (`default`), and a
 * process whose settings point the account at another service does not serve it at all: no pull,
 * no job, one line naming both addresses and what to do. `accounts rebind` moves an account to
 * the service the settings now give it, on purpose. Without this, a mirror filled from the sandbox
 * and later run with INVOICING_API_URL unset would send the sandbox's queued jobs, with the
 * sandbox's ids, to the real service.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { ConfigError } from '../errors.js';
import type { Account } from './store.js';

/** An IPv4 address written as IPv6 (`[::ffff:7f00:1]`, as URL parsing gives `[::ffff:127.0.0.1]`). */
const IPV4_MAPPED = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/i;

/**
 * An API address as it is compared: the scheme and host as URL parsing gives them (lower case, no
 * default port), an IPv4 address written as IPv6 as IPv4, the path without a trailing slash; no
 * credentials, query or fragment.
 */
export function serviceOf(url: string): string {
  const parsed = new URL(url);
  const mapped = IPV4_MAPPED.exec(parsed.hostname);
  if (mapped) {
    const [high, low] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)];
    parsed.hostname = [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** Where this process reaches the account: its own api_url, or the INVOICING_API_URL setting. */
export function serviceUrlFor(account: Pick<Account, 'api_url'>, config: Config): string {
  return account.api_url ?? config.api.url;
}

/** The process would reach an account at another service than the one its rows come from. */
export class ServiceMismatchError extends ConfigError {}

type Named = Pick<Account, 'name' | 'api_url'>;

/** The one line that names both services and the two ways out. */
export function mismatchError(account: Named, bound: string, current: string): ServiceMismatchError {
  const uses = account.api_url === null;
  const pointer = uses ? `INVOICING_API_URL points it at ${current}` : `its api_url is now ${current}`;
  const back = uses
    ? `set INVOICING_API_URL=${bound} again`
    : `give it back its address with 'invoice-mirror accounts add ${account.name} --api-url ${bound} …'`;
  return new ServiceMismatchError(
    `account ${account.name}: its rows and jobs are from the service at ${bound}, but ${pointer}; nothing is sent there: ${back}, or bind the account to ${current} on purpose with 'invoice-mirror accounts rebind ${account.name}' (its jobs queued for ${bound} then fail unsent)`,
  );
}

/** Whether an account bound to `bound` may be served at `url` (an unbound account may be served anywhere). */
export function sameService(bound: string | null, url: string): boolean {
  return bound === null || serviceOf(bound) === serviceOf(url);
}

/** Throws the mismatch when the account is bound to another service than `url`. */
export function checkService(account: Named & Pick<Account, 'service_url'>, url: string): void {
  if (!sameService(account.service_url, url)) throw mismatchError(account, account.service_url!, url);
}

/**
 * Binds an unbound account to `url` (one statement, so two processes cannot bind it to two
 * services) and returns the binding as stored; `boundNow` when this call made it. A mismatch when
 * the account is bound to another service (another process may have bound it a moment ago).
 */
export async function bindService(
  db: Kysely<Database>,
  account: Named & Pick<Account, 'id'>,
  url: string,
): Promise<{ service: string; boundNow: boolean }> {
  const binding = await bindOrRead(db, account.id, url);
  checkService({ ...account, service_url: binding.service }, url);
  return binding;
}

/** Binds the account to `url` if it is not bound yet; the binding as stored either way. */
export async function bindOrRead(
  db: Kysely<Database>,
  accountId: number,
  url: string,
): Promise<{ service: string; boundNow: boolean }> {
  const made = await db
    .updateTable('accounts')
    .set({ service_url: serviceOf(url) })
    .where('id', '=', accountId)
    .where('service_url', 'is', null)
    .returning('service_url')
    .executeTakeFirst();
  if (made) return { service: made.service_url!, boundNow: true };
  const row = await db.selectFrom('accounts').select('service_url').where('id', '=', accountId).executeTakeFirst();
  // Unbound again meanwhile (a binding taken back): bind it now. Gone (purged): its work fails on its own.
  if (row && row.service_url === null) return bindOrRead(db, accountId, url);
  return { service: row?.service_url ?? serviceOf(url), boundNow: false };
}

/**
 * Takes back a binding this process made when nothing came from the service (an address mistyped
 * on a mirror's first pull must not stick); a binding another process changed since is left.
 */
export async function unbindService(db: Kysely<Database>, accountId: number, service: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ service_url: null })
    .where('id', '=', accountId)
    .where('service_url', '=', service)
    .execute();
}
