/** `invoice-mirror sandbox`: run the simulated service until SIGINT/SIGTERM. */
import { chmodSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { MAX_ACCOUNTS, startSandbox, type SandboxOptions, type Sandbox } from '../sandbox/index.js';

export interface SandboxFlags {
  port?: string;
  host?: string;
  records?: string;
  sentInvoices?: string;
  seed?: string;
  latency?: string;
  failureRate?: string;
  quota?: string;
  sendMs?: string;
  pageSize?: string;
  maxPageSize?: string;
  ignorePaging?: string | boolean;
  admin?: boolean;
  accounts?: string;
  accountsCsv?: string;
}

function integer(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  if (!/^-?\d+$/.test(t) || Number(t) < min || Number(t) > max)
    throw new UsageError(`--${flag}: must be an integer from ${min} to ${max}`);
  return Number(t);
}

function decimal(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  if (!/^\d+(\.\d+)?$/.test(t) || Number(t) < min || Number(t) > max)
    throw new UsageError(`--${flag}: must be a number from ${min} to ${max}`);
  return Number(t);
}

/** Flags → sandbox options; every bad value is a UsageError naming the flag. */
export function sandboxOptionsFromFlags(flags: SandboxFlags): SandboxOptions {
  const host = flags.host?.trim();
  if (flags.host !== undefined && (host === '' || /\s|\//.test(host!)))
    throw new UsageError('--host: must be a host name or IP address');
  return {
    port: integer('port', flags.port, 0, 65535) ?? 4010,
    host: host ?? '127.0.0.1',
    records: integer('records', flags.records, 0, 10_000_000) ?? 500,
    sentInvoices: integer('sent-invoices', flags.sentInvoices, 0, 10_000_000),
    seed: integer('seed', flags.seed, 0, 2 ** 32 - 1) ?? 1,
    latencyMs: decimal('latency', flags.latency, 0, 600_000),
    failureRate: decimal('failure-rate', flags.failureRate, 0, 1),
    hourlyQuota: flags.quota === undefined ? undefined : integer('quota', flags.quota, 0, Number.MAX_SAFE_INTEGER),
    sendMsPerInvoice: decimal('send-ms', flags.sendMs, 0, 600_000),
    defaultPageSize: integer('page-size', flags.pageSize, 1, 1_000_000),
    maxPageSize: integer('max-page-size', flags.maxPageSize, 1, 1_000_000),
    ignorePaging:
      typeof flags.ignorePaging !== 'string'
        ? flags.ignorePaging === true || undefined
        : flags.ignorePaging
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
    admin: flags.admin === true,
    accounts: integer('accounts', flags.accounts, 1, MAX_ACCOUNTS),
  };
}

/** One CSV field, quoted when it must be (RFC 4180). */
const csvField = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** The accounts as `invoice-mirror accounts import` reads them: name,api_url,api_user,api_key. */
export function accountsCsv(sandbox: Sandbox): string {
  const lines = sandbox.accounts.map((a) =>
    [`sandbox-${a.index}`, sandbox.url, a.user, a.apiKey].map(csvField).join(','),
  );
  return `name,api_url,api_user,api_key\n${lines.join('\n')}\n`;
}

/** Writes the accounts' CSV readable by its owner only: it holds API keys. */
export function writeAccountsCsv(file: string, sandbox: Sandbox): void {
  try {
    writeFileSync(file, accountsCsv(sandbox), { mode: 0o600 });
    // The mode above applies only to a new file.
    chmodSync(file, 0o600);
  } catch (e) {
    throw new UsageError(`--accounts-csv: cannot write ${file}: ${(e as Error).message}`);
  }
}

/** The start-up text: where, which credentials, how to try it. */
function describe(sandbox: Sandbox, options: SandboxOptions, csv: string | undefined): string {
  const { url, user, apiKey } = sandbox;
  let out = `Sandbox invoicing service listening on ${url}\n`;
  out += `  user:    ${user}\n  API key: ${apiKey}\n`;
  const n = sandbox.accounts.length;
  if (n > 1) {
    out += `  accounts: ${n}, each with its own data, quota and faults; the user name picks one:\n`;
    out += `    account 1:     user ${user}, API key ${apiKey}\n`;
    out += `    account i ≥ 2: user sandbox-i, API key sandbox-i-key (sandbox-2 … sandbox-${n})\n`;
  }
  if (csv !== undefined)
    out += `  wrote:   ${csv} (name,api_url,api_user,api_key; for invoice-mirror accounts import)\n`;
  out += `  try:     curl -u ${user}:${apiKey} '${url}/clients?count=5'\n`;
  out += `  use:     INVOICING_API_URL=${url} INVOICING_API_USER=${user} INVOICING_API_KEY=${apiKey}\n`;
  if (options.admin)
    out += `  admin:   ${url.replace(/\/api\/v1$/, '')}/_admin/ (knobs, clock, fail, churn, records, calls, accounts)\n`;
  return `${out}Press Ctrl+C to stop.\n`;
}

const HELP = `
Faults, at run time through the admin routes (with --admin) or the in-process API (failNext):
  POST /_admin/fail {"kind": K, "count": N, "pathPrefix": "/clients"}   the next N matching calls fail as K:
    500        a plain-text server error          html500   a server error as an HTML page
    drop       the connection closes, no answer   hang      no answer until hangMs, then dropped
    malformed  a 200 with JSON cut short          truncated Content-Length says more than arrives
    html200    a 200 with an HTML page            empty     a 200 with an empty list []
    duplicate  a list page with its first record twice      quota     403 with X-RateLimit-Remaining: 0
    error200   a 200 with {"error": {"message", "code"}}    bom       JSON after a byte order mark
    lost       carried out, but no answer until hangMs, then dropped (a send or payment whose answer is lost)
  PUT /_admin/knobs {"maxPageSize": 100, "ignorePaging": ["clients"], "latencyMs": 50, "failureRate": 0.1, ...}
  PUT /_admin/records/{entity}/{id}/wire {"company": "a\u0000b", "lastinvoice": "2027-02-30"}   fields as sent, unchecked
  POST /_admin/records/{entity} {"clientnr": 3000000000}   a record with the given id

Accounts (with --accounts N): the Basic auth user name picks the account. Account 1 is user sandbox
with API key sandbox, account i ≥ 2 user sandbox-i with API key sandbox-i-key; each has its own
generated data (seed + i - 1), quota and faults. The admin routes act on account 1, or on account i
with ?account=i (an unknown account is 404); knobs and clock are shared by all:
  POST /_admin/fail?account=3 {"kind": "500"}     POST /_admin/quota/reset?account=3
  PUT /_admin/quota?account=3 {"hourlyQuota": 0}  that account's own quota (null: unlimited)
  POST /_admin/key?account=3 {"refused": true}    its key refused (401), {"refused": false} again
  GET /_admin/accounts                            every account; GET /_admin/calls?account=3 its calls`;

/** Serves until SIGINT or SIGTERM. */
async function runSandbox(flags: SandboxFlags): Promise<void> {
  const options = sandboxOptionsFromFlags(flags);
  const csv = flags.accountsCsv;
  if (csv !== undefined && csv.trim() === '') throw new UsageError('--accounts-csv: must be a file name');
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox(options);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`--port: port ${options.port} is already in use`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`--host: cannot listen on ${options.host}`);
    throw e;
  }
  if (csv !== undefined) {
    try {
      writeAccountsCsv(csv, sandbox);
    } catch (e) {
      await sandbox.close();
      throw e;
    }
  }
  const out = process.stdout;
  out.write(describe(sandbox, options, csv));
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await sandbox.close();
  out.write('Sandbox stopped.\n');
}

export function registerSandboxCommand(command: Command): void {
  command
    .option('--port <port>', 'port to listen on (0 = any free port)', '4010')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--records <n>', 'generated records, split over the five record kinds', '500')
    .option(
      '--sent-invoices <n>',
      'invoices already sent at the start (default: as many as saved invoices, at most 500)',
    )
    .option('--seed <s>', 'seed of the generated data', '1')
    .option('--latency <ms>', 'latency added to every response')
    .option('--failure-rate <r>', 'chance (0..1) that a call fails (500, dropped, hung, malformed)')
    .option('--quota <n>', 'API calls allowed per hour (default: unlimited)')
    .option('--send-ms <ms>', 'time it takes to send one saved invoice (default 1500)')
    .option('--page-size <n>', 'page size when a list call has no count (default 100)')
    .option('--max-page-size <n>', 'the most records one list answer holds, whatever count asks (default: no cap)')
    .option(
      '--ignore-paging [lists]',
      'answer every list (or the named ones, e.g. clients,products) whole, ignoring count and start',
    )
    .option('--admin', 'enable the admin routes under /_admin')
    .option(
      '--accounts <n>',
      `serve n accounts (1..${MAX_ACCOUNTS}), each with its own data, quota and faults: account 1 as user sandbox, ` +
        'account i ≥ 2 as user sandbox-i with API key sandbox-i-key',
    )
    .option('--accounts-csv <file>', 'write the accounts as CSV (name,api_url,api_user,api_key; mode 0600)')
    .addHelpText('after', HELP)
    .action(runSandbox);
}
