/**
 * DNS rebinding: a site whose name is made to resolve to this machine sends a browser's requests
 * to the console with its own name in `Host` (and, on a form it posts, in `Origin`, where the
 * browser also says `Sec-Fetch-Site: same-origin`); on loopback, where the console asks for no
 * credential, such a page could read the mirror and queue jobs. So the console answers only a
 * `Host` naming the address the request came in on (for loopback: 127.0.0.1, localhost or [::1],
 * with the port) or one of CONSOLE_PUBLIC_HOSTS, else 421; and takes a change (any method but GET
 * and HEAD) only with an `Origin`, or without one a `Referer`, that names one of those, else 403.
 * Each refusal is one line in the log.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { isLoopback } from '../config.js';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** An address as a `Host` names it: IPv6 in brackets, an IPv4 one mapped into IPv6 as itself. */
function hostName(address: string): string {
  const bare = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return bare.includes(':') ? `[${bare.toLowerCase()}]` : bare.toLowerCase();
}

/**
 * The `host[:port]` names of the address a request came in on (its socket's local end), or, for a
 * request with no socket (the app called in process), the loopback names without a port.
 */
function ownHosts(incoming: IncomingMessage | undefined): string[] {
  const socket = incoming?.socket;
  if (!socket?.localAddress || !socket.localPort) return LOOPBACK_NAMES;
  const name = hostName(socket.localAddress);
  const names = isLoopback(name) ? [...new Set([...LOOPBACK_NAMES, name])] : [name];
  const port = socket.localPort;
  // A browser leaves out the port its scheme implies.
  return names.flatMap((host) => (port === 80 ? [host, `${host}:80`] : [`${host}:${port}`]));
}

/** The `host[:port]` of a URL (an Origin, a Referer), or null when it is none (`null`, garbage). */
function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.host === '' ? null : parsed.host.toLowerCase();
  } catch {
    return null;
  }
}

export function requireOwnHost(publicHosts: readonly string[], log: Logger): MiddlewareHandler {
  const configured = publicHosts.map((host) => host.toLowerCase());
  return async (c, next) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const allowed = new Set([...ownHosts(incoming), ...configured]);
    const named = (c.req.header('host') ?? '').toLowerCase() || new URL(c.req.url).host.toLowerCase();
    // An absolute request target names its own host, which must be one of them too.
    const hosts = [named, new URL(c.req.url).host.toLowerCase()];
    if (hosts.some((host) => !allowed.has(host))) return refuse(c, log, 421, `Host ${named}`, allowed);
    if (SAFE_METHODS.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    const from = origin === undefined ? hostOf(c.req.header('referer')) : hostOf(origin);
    if (from === null || !allowed.has(from))
      return refuse(
        c,
        log,
        403,
        origin === undefined ? `Referer ${c.req.header('referer') ?? '(none)'}` : `Origin ${origin}`,
        allowed,
      );
    return next();
  };
}

function refuse(c: Context, log: Logger, status: 421 | 403, what: string, allowed: ReadonlySet<string>): Response {
  const names = [...allowed].join(', ');
  const why =
    status === 421
      ? `the console answers only for ${names}; this request names ${what} (a name not its own: DNS rebinding?)`
      : `a change must come from a page of the console (${names}); this one says ${what}`;
  log.warn(
    { method: c.req.method, path: c.req.path, status },
    `console: refused: ${why}; CONSOLE_PUBLIC_HOSTS adds a name`,
  );
  return c.text(`${status} ${why}; CONSOLE_PUBLIC_HOSTS adds a name the console is reached by\n`, status);
}
