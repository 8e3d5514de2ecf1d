/**
 * The HTTP face of the sandbox: call log, Basic auth (the user name picks the account), the
 * account's hourly quota and injected faults, latency, then the routes on the account's data.
 * Every response carries X-RateLimit-Remaining, errors are plain text.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { json, text, type Reply } from './actions.js';
import type { FaultKind, Faults, Quota } from './faults.js';
import { route, type RouteContext } from './routes.js';
import type { Account } from './store.js';
import { HttpError, parseForm } from './wire.js';
import { logger } from '../log.js';

export interface CallRecord {
  seq: number;
  /** The account whose user name the call gave (from 1); 0 when it named none. */
  account: number;
  method: string;
  path: string;
  query: string;
  body: string | undefined;
  /** null when the connection was dropped or hung (no response). */
  status: number | null;
  /** performance.timeOrigin + performance.now(), in ms. */
  startedAt: number;
  /** Infinity while the call is still in flight. */
  endedAt: number;
  fault?: FaultKind;
}

export interface Knobs {
  latencyMs: number;
  failureRate: number;
  failureKinds: FaultKind[];
  hourlyQuota: number;
  sendMsPerInvoice: number;
  /** Page size when a list call names no count. */
  defaultPageSize: number;
  /** The most records one list answer holds, whatever `count` asks (Infinity: no cap). */
  maxPageSize: number;
  /** Lists that answer everything at once, ignoring `count` and `start`: all (true) or the named ones. */
  ignorePaging: boolean | string[];
  hangMs: number;
}

/** What the server needs of an account. */
export interface ServedAccount {
  readonly index: number;
  readonly apiKey: string;
  /** Every call 401, as with a key made inactive in the service. */
  readonly keyRefused: boolean;
  readonly quota: Quota;
  readonly faults: Faults;
  readonly calls: CallRecord[];
  data(): Account;
}

export interface ServerDeps {
  knobs: Knobs;
  /** Every call, whichever account it named (or none). */
  calls: CallRecord[];
  /** The account a user name names. */
  accountOf(user: string): ServedAccount | undefined;
  /** Account 1: its quota is the header of answers to a user name that names no account. */
  first: ServedAccount;
  /** Handles /_admin/... when the admin surface is on (undefined: off, those paths are 404). */
  admin?: (method: string, path: string, query: URLSearchParams, body: unknown) => Reply | Promise<Reply>;
}

const PREFIX = '/api/v1';
const MAX_BODY = 20 * 1024 * 1024;
export const hrNow = (): number => performance.timeOrigin + performance.now();

class Closed extends Error {}

export class SandboxServer {
  readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly waits = new Set<{ timer: NodeJS.Timeout; reject: (e: Error) => void }>();
  private seq = 0;
  private closed = false;

  constructor(private readonly deps: ServerDeps) {
    this.server = createServer({ keepAliveTimeout: 5000 }, (req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  /** A wait that ends early (rejecting) when the sandbox closes. */
  wait(ms: number): Promise<void> {
    if (this.closed) return Promise.reject(new Closed());
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const entry = {
        timer: setTimeout(() => {
          this.waits.delete(entry);
          resolve();
        }, ms),
        reject,
      };
      this.waits.add(entry);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waits) {
      clearTimeout(w.timer);
      w.reject(new Closed());
    }
    this.waits.clear();
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await done;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = hrNow();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const method = (req.method ?? 'GET').toUpperCase();
    const isAdmin = path.startsWith('/_admin') && this.deps.admin !== undefined;
    const credentials = readCredentials(req);
    const account = credentials ? this.deps.accountOf(credentials.user) : undefined;
    const call: CallRecord = {
      seq: 0,
      account: account?.index ?? 0,
      method,
      path,
      query,
      body: undefined,
      status: null,
      startedAt,
      endedAt: Number.POSITIVE_INFINITY,
    };
    if (!isAdmin) {
      call.seq = ++this.seq;
      this.deps.calls.push(call);
      account?.calls.push(call);
    }
    res.on('finish', () => {
      call.status = res.statusCode;
      call.endedAt = hrNow();
    });
    res.on('close', () => {
      if (call.endedAt === Number.POSITIVE_INFINITY) call.endedAt = hrNow();
    });
    const quota = (account ?? this.deps.first).quota;
    try {
      const raw = await readBody(req);
      call.body = raw === '' ? undefined : raw;
      // The admin routes take any account's user name and key, refused or not.
      const refused = account && !isAdmin && account.keyRefused;
      if (!account || credentials?.key !== account.apiKey || refused) {
        await this.wait(this.deps.knobs.latencyMs);
        const body = refused
          ? 'Unauthorized: this API key is not active'
          : 'Unauthorized: use HTTP Basic auth with your user name and API key';
        return this.send(res, text(401, body), quota, { 'WWW-Authenticate': 'Basic realm="api"' });
      }
      if (isAdmin) {
        const reply = await this.run(() =>
          this.deps.admin!(method, path, new URLSearchParams(query), parseBody(req, raw)),
        );
        return this.send(res, reply, quota);
      }
      await this.serve(req, res, call, account, raw);
    } catch (e) {
      if (e instanceof Closed) return void req.socket.destroy();
      if (e instanceof HttpError) return this.send(res, text(e.status, e.message), quota);
      logger.error({ err: e }, 'sandbox: unexpected error');
      if (!res.headersSent) this.send(res, text(500, 'Internal Server Error'), quota);
    }
  }

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    call: CallRecord,
    account: ServedAccount,
    raw: string,
  ): Promise<void> {
    const { knobs } = this.deps;
    const { quota, faults } = account;
    const { method, path, query } = call;
    const relative = path.startsWith(PREFIX) ? path.slice(PREFIX.length) || '/' : path;
    const fault = faults.decide(method, relative, knobs.failureRate, knobs.failureKinds);
    if (fault === 'quota' || !quota.take()) {
      await this.wait(knobs.latencyMs);
      return this.send(res, text(403, 'Rate limit exceeded: the hourly quota of API calls is used up'), quota, {
        'X-RateLimit-Remaining': '0',
      });
    }
    if (fault) call.fault = fault;
    if (fault === 'drop') return dropConnection(req, call);
    if (fault === 'hang') {
      await this.wait(knobs.hangMs).catch(() => undefined);
      return dropConnection(req, call);
    }
    await this.wait(knobs.latencyMs);
    if (fault === '500') return this.send(res, text(500, 'Internal Server Error'), quota);
    if (fault === 'html500')
      return this.send(res, htmlPage(502, 'Bad Gateway', 'The upstream server did not answer.'), quota);
    if (fault === 'html200')
      return this.send(
        res,
        htmlPage(200, 'Onderhoud', 'FactuurSturen.nl is even niet bereikbaar wegens onderhoud.'),
        quota,
      );
    if (fault === 'empty' && method === 'GET') return this.send(res, json('[]'), quota);
    if (fault === 'error200') return this.send(res, json(ERROR_OBJECT), quota);
    let reply = await this.run(() => {
      if (!path.startsWith(`${PREFIX}/`) && path !== PREFIX) throw new HttpError(404, 'Not found');
      const segments = relative
        .split('/')
        .filter((s) => s !== '')
        .map(decodeSegment);
      const ctx: RouteContext = {
        account: account.data(),
        defaultPageSize: knobs.defaultPageSize,
        maxPageSize: knobs.maxPageSize,
        ignorePaging: knobs.ignorePaging,
        sendDelay: (n) => this.wait(n * knobs.sendMsPerInvoice),
      };
      return route(ctx, {
        method,
        segments,
        query: new URLSearchParams(query),
        body: parseBody(req, raw),
        ip: req.socket.remoteAddress ?? '',
      });
    });
    if (fault === 'lost') {
      // Done at the service; the answer is what goes missing.
      await this.wait(knobs.hangMs).catch(() => undefined);
      return dropConnection(req, call);
    }
    if (fault === 'duplicate') reply = duplicateFirst(reply);
    if (fault === 'bom') reply = withBom(reply);
    if (fault === 'truncated') return this.sendTruncated(res, call, reply, quota);
    if (fault === 'malformed') {
      // The operation happened, but the answer is cut short.
      const full = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
      const body =
        reply.type === 'json'
          ? full.subarray(0, Math.max(1, Math.floor(full.length / 2)))
          : `{"result": "${String(reply.body).slice(0, 2)}`;
      reply = { status: 200, type: 'json', body };
    }
    this.send(res, reply, quota);
  }

  /** Announces the whole answer's length, sends half of it and closes the connection. */
  private async sendTruncated(res: ServerResponse, call: CallRecord, reply: Reply, quota: Quota): Promise<void> {
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
    res.writeHead(reply.status, {
      'Content-Type': CONTENT_TYPES[reply.type],
      'Content-Length': String(body.length),
      'X-RateLimit-Remaining': quota.header(),
    });
    res.write(body.subarray(0, Math.floor(body.length / 2)));
    await this.wait(20).catch(() => undefined);
    res.socket?.destroy();
    if (call.endedAt === Number.POSITIVE_INFINITY) call.endedAt = hrNow();
  }

  private async run(fn: () => Reply | Promise<Reply>): Promise<Reply> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof HttpError) return text(e.status, e.message);
      throw e;
    }
  }

  private send(res: ServerResponse, reply: Reply, quota: Quota, extra: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
    res.writeHead(reply.status, {
      'Content-Type': CONTENT_TYPES[reply.type],
      'Content-Length': String(body.length),
      'X-RateLimit-Remaining': quota.header(),
      ...extra,
    });
    res.end(body);
  }
}

const CONTENT_TYPES: Record<Reply['type'], string> = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  pdf: 'application/pdf',
};

/** An error page as a proxy or the service's web front would answer it: HTML, not the API's text. */
function htmlPage(status: number, title: string, message: string): Reply {
  const style = 'body{font-family:sans-serif;margin:4em}'.repeat(20); // pages are long; messages must not be
  return {
    status,
    type: 'html',
    body: `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${status === 200 ? '' : `${status} `}${title}</title><style>${style}</style></head>\n<body><h1>${title}</h1><p>${message}</p></body></html>\n`,
  };
}

/** What the service (PHP) answers with status 200 when it fails inside: an error object, not the data. */
const ERROR_OBJECT = JSON.stringify({
  error: { message: 'Er is een fout opgetreden bij het ophalen van de gegevens', code: 500 },
});

/** A JSON answer preceded by a UTF-8 byte order mark (EF BB BF); other answers as they are. */
function withBom(reply: Reply): Reply {
  if (reply.type !== 'json') return reply;
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
  return { ...reply, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) };
}

/** A list answer with its first record again at the end, that copy with a changed field. */
function duplicateFirst(reply: Reply): Reply {
  if (reply.type !== 'json' || reply.status !== 200) return reply;
  const items = JSON.parse(String(reply.body)) as unknown;
  if (!Array.isArray(items) || items.length === 0) return reply;
  const copy = { ...(items[0] as Record<string, unknown>), notes: 'the second copy of this record in one answer' };
  return { ...reply, body: JSON.stringify([...items, copy]) };
}

/** End a call without an answer (the log shows status null). */
function dropConnection(req: IncomingMessage, call: CallRecord): void {
  req.socket.destroy();
  if (call.endedAt === Number.POSITIVE_INFINITY) call.endedAt = hrNow();
}

/** The user name and key of a Basic authorization header. */
function readCredentials(req: IncomingMessage): { user: string; key: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `Bad percent-encoding in path segment "${segment}"`);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'Request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON or form-encoded, as the service takes both; undefined when there is no body. */
function parseBody(req: IncomingMessage, raw: string): unknown {
  if (raw.trim() === '') return undefined;
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded')) return parseForm(raw);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    if (!type.includes('json') && /^[^{[\s"][^=]*=/.test(raw)) return parseForm(raw);
    throw new HttpError(400, 'The request body is not valid JSON');
  }
}
