/**
 * Every console route that takes an id (or a name) answers one that names nothing with 404, not
 * 500: the routes are read from the app itself, so a route added later is probed too. Ids too
 * large for the database's columns are ids that name nothing as well. And every answer carries the
 * Content-Security-Policy.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDefaultAccount } from '../../src/accounts/store.js';
import { CONTENT_SECURITY_POLICY, createConsoleApp } from '../../src/console/index.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const settings = { inDaemon: false, user: 'admin', password: undefined, token: undefined };
const app = () => createConsoleApp({ db: database.current.handle.db, settings, maxAttempts: 1, worker: true });

/** Values for each route parameter that name nothing (ids: unused, and beyond any column's range). */
const NOTHING: Record<string, string[]> = {
  id: ['987654', '2147483648', '999999999999999', '99999999999999999999'],
  event: ['987654', '99999999999999999999'],
  entity: ['nosuch'],
  name: ['nosuch'],
  file: ['nosuch.csv'],
};

/**
 * A route's path with each `:param{pattern}` filled in, in every combination of NOTHING's values;
 * an entity followed by an id is also an entity that exists (the id names nothing).
 */
function filled(path: string): string[] {
  const match = /:(\w+)(\{[^}]*\})?/.exec(path);
  if (!match) return [path];
  const name = match[1]!;
  const pattern = match[2] ? new RegExp(`^(${match[2].slice(1, -1)})$`) : null;
  // A parameter with a fixed set of values (decision, action) takes each of them.
  const fixed = pattern && !NOTHING[name] ? match[2]!.slice(1, -1).split('|') : undefined;
  const more = name === 'entity' && path.slice(match.index + match[0].length).includes(':') ? ['clients'] : [];
  const values = [...(fixed ?? NOTHING[name] ?? ['987654']), ...more].filter(
    (value) => !pattern || pattern.test(value),
  );
  return values.flatMap((value) => filled(path.replace(match[0], value)));
}

beforeAll(async () => {
  const db = database.current.handle.db;
  await ensureDefaultAccount(db);
  // A record, a job and a webhook that exist: the probes name others.
  await sql`insert into clients (account_id, clientnr, company, raw) select id, 1, 'Existing BV', '{}' from accounts`.execute(
    db,
  );
  await sql`insert into jobs (account_id, kind, payload) select id, 'delete_product', '{"id": 1}' from accounts`.execute(
    db,
  );
});

describe('console routes with an id', () => {
  it('answer 404 for an id or name that names nothing, on every route, GET and POST', async () => {
    const console = app();
    const routes = console.routes.filter((route) => route.path.includes(':') && route.method !== 'ALL');
    expect(routes.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const route of routes)
      for (const path of filled(route.path)) {
        const answer = await console.request(path, {
          method: route.method,
          headers:
            route.method === 'POST'
              ? { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' }
              : {},
          body: route.method === 'POST' ? 'choice=resend&ids=all' : undefined,
        });
        const body = await answer.text();
        expect(answer.headers.get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY);
        if (answer.status !== 404) wrong.push(`${route.method} ${path}: ${answer.status} ${body.slice(0, 200)}`);
      }
    expect(wrong).toEqual([]);
  });

  it('a webhook of another account is not found in that account’s pages either', async () => {
    const db = database.current.handle.db;
    const { rows } = await sql<{ id: number }>`insert into accounts (name) values ('other') returning id`.execute(db);
    const { rows: hooks } = await sql<{ id: number }>`
      insert into webhook_subscriptions (url, account_id, secret)
      values ('http://127.0.0.1:9/hook', ${rows[0]!.id}, 'sealed') returning id`.execute(db);
    const id = hooks[0]!.id;
    const post = {
      method: 'POST',
      headers: { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' },
    };
    expect((await app().request(`/webhooks/${id}?account=default`)).status).toBe(404);
    expect((await app().request(`/webhooks/${id}/resume?account=default`, post)).status).toBe(404);
    expect((await app().request(`/webhooks/${id}?account=other`)).status).toBe(200);
  });
});
