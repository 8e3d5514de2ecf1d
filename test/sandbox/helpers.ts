/** Plain HTTP helpers for the sandbox contract tests (no project client: these test the wire itself). */
import { request } from 'undici';
import { afterEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

const open: Sandbox[] = [];
afterEach(async () => {
  for (const sb of open.splice(0)) await sb.close();
});

/** A sandbox closed after the current test. */
export async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ records: 100, seed: 3, sendMsPerInvoice: 5, ...options });
  open.push(sb);
  return sb;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  type: string;
  json<T = any>(): T;
}

export interface CallOptions {
  body?: unknown;
  form?: string;
  auth?: string | null;
  headers?: Record<string, string>;
}

export function basic(user: string, key: string): string {
  return `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
}

/** One request; `path` is relative to /api/v1 (or absolute from the host when it starts with //). */
export async function call(sb: Sandbox, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.auth !== null) headers.authorization = options.auth ?? basic(sb.user, sb.apiKey);
  let body: string | undefined;
  if (options.form !== undefined) {
    body = options.form;
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = path.startsWith('//') ? sb.url.replace(/\/api\/v1$/, '') + path.slice(1) : sb.url + path;
  const res = await request(url, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    type: String(res.headers['content-type'] ?? ''),
    json: () => JSON.parse(text),
  };
}

export const get = (sb: Sandbox, path: string, o?: CallOptions) => call(sb, 'GET', path, o);
export const post = (sb: Sandbox, path: string, body: unknown, o?: CallOptions) =>
  call(sb, 'POST', path, { body, ...o });
export const put = (sb: Sandbox, path: string, body: unknown, o?: CallOptions) => call(sb, 'PUT', path, { body, ...o });
export const del = (sb: Sandbox, path: string, o?: CallOptions) => call(sb, 'DELETE', path, o);

/** The one value of a one-key wrapper object. */
export function unwrap(answer: Answer, key: string): Record<string, any> {
  const body = answer.json();
  if (Object.keys(body).length !== 1 || !(key in body))
    throw new Error(`expected {"${key}": …}, got ${answer.text.slice(0, 200)}`);
  return body[key];
}

/** Every value of a record's top-level scalar fields is a string (the service is PHP). */
export function scalarsAreStrings(rec: Record<string, unknown>, except: string[] = []): string[] {
  return Object.entries(rec)
    .filter(([k, v]) => !except.includes(k) && (v === null || (typeof v !== 'string' && typeof v !== 'object')))
    .map(([k]) => k);
}
