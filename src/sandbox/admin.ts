/**
 * The optional admin HTTP surface (/_admin/..., only with `admin: true` / `--admin`): the same
 * knobs as the in-process API, for demos and for tests in another process. Any account's user
 * name and key open it (a refused key too).
 */
import { json, text, type Reply } from './actions.js';
import { ENTITIES, type SandboxEntity } from './fields.js';
import type { FaultKind } from './faults.js';
import { accountAt, type SandboxAccount } from './accounts.js';
import type { SandboxClock } from './clock.js';
import { checkKnobs } from './knobs.js';
import type { CallRecord, Knobs } from './server.js';
import { HttpError, type Rec } from './wire.js';

const obj = (body: unknown): Rec => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Rec) : {});

function entityOf(name: string | undefined): SandboxEntity {
  if (!name || !(ENTITIES as readonly string[]).includes(name))
    throw new HttpError(404, `Unknown entity "${name}" (${ENTITIES.join(', ')})`);
  return name as SandboxEntity;
}

/** Run a store operation, answering 404 when it names a record that is not there. */
function attempt(fn: () => void): Reply {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(404, e instanceof Error ? e.message : String(e));
  }
  return text(200, 'OK');
}

/** What the admin routes act on: the running sandbox (index.ts's Sandbox), as far as they use it. */
export interface AdminTarget {
  readonly calls: CallRecord[];
  clearCalls(): void;
  readonly knobs: Knobs;
  readonly clock: SandboxClock;
  readonly accounts: SandboxAccount[];
}

/** The account `?account=N` names (account 1 without it); 404 for one the sandbox does not have. */
function accountOf(sb: AdminTarget, query: URLSearchParams): SandboxAccount {
  const given = query.get('account');
  if (given === null) return sb.accounts[0]!;
  const index = /^\d+$/.test(given.trim()) ? Number(given) : Number.NaN;
  try {
    return accountAt(sb.accounts, index);
  } catch {
    throw new HttpError(404, `Unknown account "${given}": this sandbox has accounts 1 to ${sb.accounts.length}`);
  }
}

/** Run a check that throws an Error, answering 400 with its message. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new HttpError(400, (e as Error).message);
  }
}

const summary = (a: SandboxAccount) => ({
  index: a.index,
  user: a.user,
  apiKey: a.apiKey,
  seed: a.seed,
  generated: a.generated,
  keyRefused: a.keyRefused,
  hourlyQuota: Number.isFinite(a.hourlyQuota) ? a.hourlyQuota : null,
  quotaRemaining: Number.isFinite(a.quotaRemaining) ? a.quotaRemaining : null,
  calls: a.calls.length,
});

/** Routes of the shared knobs and clock. */
function shared(sb: AdminTarget, route: string, b: Rec): Reply | undefined {
  if (route === 'GET knobs') return json(JSON.stringify(sb.knobs));
  if (route === 'PUT knobs' || route === 'POST knobs') {
    Object.assign(
      sb.knobs,
      checked(() => checkKnobs(b as Partial<Knobs>)),
    );
    return json(JSON.stringify(sb.knobs));
  }
  if (route === 'GET clock')
    return json(JSON.stringify({ now: sb.clock.now().toISOString(), today: sb.clock.today() }));
  if (route === 'POST clock') {
    checked(() => {
      if (b.advanceDays !== undefined) sb.clock.advanceDays(Number(b.advanceDays));
      if (b.set !== undefined) sb.clock.set(String(b.set));
    });
    return json(JSON.stringify({ today: sb.clock.today() }));
  }
  if (route === 'GET accounts') return json(JSON.stringify(sb.accounts.map(summary)));
  return undefined;
}

/** Routes of one account: its calls, faults, quota, key and data. */
function ofAccount(a: SandboxAccount, method: string, parts: string[], b: Rec): Reply {
  const route = `${method} ${parts.join('/')}`;
  if (route === 'GET account') return json(JSON.stringify(summary(a)));
  if (route === 'GET sent') return json(JSON.stringify(a.store.sentSavedIds()));
  if (route === 'POST fail') {
    checked(() =>
      a.failNext(b.kind as FaultKind | 'quota', b.count === undefined ? 1 : Number(b.count), {
        method: b.method as string | undefined,
        pathPrefix: b.pathPrefix as string | undefined,
      }),
    );
    return text(200, 'OK');
  }
  if (route === 'POST quota/reset') {
    a.resetQuota();
    return text(200, 'OK');
  }
  if (route === 'PUT quota' || route === 'POST quota') {
    checked(() => (a.hourlyQuota = b.hourlyQuota === null ? Number.POSITIVE_INFINITY : (b.hourlyQuota as number)));
    return json(JSON.stringify(summary(a)));
  }
  if (route === 'POST key') {
    a.refuseKey(b.refused !== false);
    return json(JSON.stringify(summary(a)));
  }
  if (route === 'POST churn') return json(JSON.stringify(a.store.churn(Number(b.count ?? 1) || 1)));
  if (parts[0] === 'records') {
    const entity = entityOf(parts[1]);
    const id = parts[2] === undefined ? undefined : Number(parts[2]);
    if (method === 'GET' && id === undefined) return json(JSON.stringify(a.store.list(entity)));
    if (method === 'POST' && id === undefined) return json(JSON.stringify({ id: a.store.insert(entity, b) }), 201);
    if (id !== undefined && Number.isInteger(id)) {
      if (method === 'PUT' && parts.length === 3) return attempt(() => a.store.update(entity, id, b));
      if (method === 'PUT' && parts[3] === 'wire') return attempt(() => a.store.setWire(entity, id, b));
      if (method === 'DELETE' && parts.length === 3) return attempt(() => a.store.delete(entity, id));
      if (method === 'POST' && parts[3] === 'restore') return attempt(() => a.store.restore(entity, id));
    }
  }
  throw new HttpError(404, 'Unknown admin route');
}

/**
 * The admin routes. Knobs, clock and `GET accounts` are shared; the others act on account 1, or on
 * account N with `?account=N`. `GET calls` without it lists every call (each names its account).
 */
export function adminHandler(sandbox: () => AdminTarget) {
  return (method: string, path: string, query: URLSearchParams, body: unknown): Reply => {
    const sb = sandbox();
    const parts = path.split('/').filter(Boolean).slice(1);
    const route = `${method} ${parts.join('/')}`;
    const account = accountOf(sb, query);
    const b = obj(body);
    const all = !query.has('account');
    if (route === 'GET calls') return json(JSON.stringify(all ? sb.calls : account.calls));
    if (route === 'DELETE calls') {
      if (all) sb.clearCalls();
      else account.clearCalls();
      return text(200, 'OK');
    }
    return shared(sb, route, b) ?? ofAccount(account, method, parts, b);
  };
}
