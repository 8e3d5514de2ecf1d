/**
 * Who may use the console. On a loopback address anyone on this machine may (as with psql on a
 * local socket); on any other address the console refuses to start without a credential: Basic
 * auth (CONSOLE_USER, CONSOLE_PASSWORD), a bearer token (CONSOLE_TOKEN), or both.
 *
 * Whoever may use it, the console answers only for its own names, and takes a change (a POST)
 * only from a page of its own (own-host.ts, against DNS rebinding), and Hono's `csrf` middleware
 * refuses a change the browser says came from another site: another site cannot make a browser
 * queue or cancel jobs.
 */
import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { isLoopback, type ConsoleSettings } from '../config.js';
import { ConfigError } from '../errors.js';

/** Throws a ConfigError when the console would be open to the network without a credential. */
export function checkConsoleAccess(host: string, settings: ConsoleSettings, what: string): void {
  if (isLoopback(host) || settings.password || settings.token) return;
  throw new ConfigError(
    `${what}: the console would listen on ${host} without a credential; set CONSOLE_PASSWORD (Basic auth, user CONSOLE_USER) or CONSOLE_TOKEN, or listen on 127.0.0.1`,
  );
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Checks the credential on every request when one is set. */
export function requireCredential(settings: Pick<ConsoleSettings, 'user' | 'password' | 'token'>): MiddlewareHandler {
  const { password, token, user } = settings;
  const basic = password ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : undefined;
  const bearer = token ? `Bearer ${token}` : undefined;
  return async (c, next) => {
    if (!basic && !bearer) return next();
    const given = c.req.header('authorization') ?? '';
    if ((basic && sameText(given, basic)) || (bearer && sameText(given, bearer))) return next();
    if (basic) c.header('www-authenticate', 'Basic realm="invoice-mirror console", charset="UTF-8"');
    return c.text(
      '401 the console needs a credential: Basic auth (CONSOLE_USER, CONSOLE_PASSWORD) or a bearer token (CONSOLE_TOKEN)\n',
      401,
    );
  };
}
