/**
 * The optional admin HTTP surface (/_admin/..., only with `admin: true` / `--admin`): the same
 * knobs as the in-process API, for demos and for tests in another process.
 */
import { json, text, type Reply } from './actions.js';
import { ENTITIES, type SandboxEntity } from './fields.js';
import type { FaultKind } from './faults.js';
import type { Sandbox } from './index.js';
import { checkKnobs } from './knobs.js';
import type { Knobs } from './server.js';
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

export function adminHandler(sandbox: () => Sandbox) {
  return (method: string, path: string, body: unknown): Reply => {
    const sb = sandbox();
    const parts = path.split('/').filter(Boolean).slice(1);
    const route = `${method} ${parts.join('/')}`;
    const b = obj(body);
    if (route === 'GET calls') return json(JSON.stringify(sb.calls));
    if (route === 'DELETE calls') {
      sb.clearCalls();
      return text(200, 'OK');
    }
    if (route === 'GET sent') return json(JSON.stringify(sb.store.sentSavedIds()));
    if (route === 'GET knobs') return json(JSON.stringify(sb.knobs));
    if (route === 'PUT knobs' || route === 'POST knobs') {
      let checked: Partial<Knobs>;
      try {
        checked = checkKnobs(b as Partial<Knobs>);
      } catch (e) {
        throw new HttpError(400, (e as Error).message);
      }
      Object.assign(sb.knobs, checked);
      return json(JSON.stringify(sb.knobs));
    }
    if (route === 'GET clock')
      return json(JSON.stringify({ now: sb.clock.now().toISOString(), today: sb.clock.today() }));
    if (route === 'POST clock') {
      try {
        if (b.advanceDays !== undefined) sb.clock.advanceDays(Number(b.advanceDays));
        if (b.set !== undefined) sb.clock.set(String(b.set));
      } catch (e) {
        throw new HttpError(400, (e as Error).message);
      }
      return json(JSON.stringify({ today: sb.clock.today() }));
    }
    if (route === 'POST fail') {
      try {
        sb.failNext(b.kind as FaultKind | 'quota', b.count === undefined ? 1 : Number(b.count), {
          method: b.method as string | undefined,
          pathPrefix: b.pathPrefix as string | undefined,
        });
      } catch (e) {
        throw new HttpError(400, (e as Error).message);
      }
      return text(200, 'OK');
    }
    if (route === 'POST quota/reset') {
      sb.resetQuota();
      return text(200, 'OK');
    }
    if (route === 'POST churn') return json(JSON.stringify(sb.store.churn(Number(b.count ?? 1) || 1)));
    if (parts[0] === 'records') {
      const entity = entityOf(parts[1]);
      const id = parts[2] === undefined ? undefined : Number(parts[2]);
      if (method === 'GET' && id === undefined) return json(JSON.stringify(sb.store.list(entity)));
      if (method === 'POST' && id === undefined) return json(JSON.stringify({ id: sb.store.insert(entity, b) }), 201);
      if (id !== undefined && Number.isInteger(id)) {
        if (method === 'PUT' && parts.length === 3) return attempt(() => sb.store.update(entity, id, b));
        if (method === 'PUT' && parts[3] === 'wire') return attempt(() => sb.store.setWire(entity, id, b));
        if (method === 'DELETE' && parts.length === 3) return attempt(() => sb.store.delete(entity, id));
        if (method === 'POST' && parts[3] === 'restore') return attempt(() => sb.store.restore(entity, id));
      }
    }
    throw new HttpError(404, 'Unknown admin route');
  };
}
