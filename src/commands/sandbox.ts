/** `invoice-mirror sandbox`: run the simulated service until SIGINT/SIGTERM. */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { startSandbox, type SandboxOptions, type Sandbox } from '../sandbox/index.js';

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
  };
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
    .addHelpText(
      'after',
      `
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
  POST /_admin/records/{entity} {"clientnr": 3000000000}   a record with the given id`,
    )
    .action(async (flags: SandboxFlags) => {
      const options = sandboxOptionsFromFlags(flags);
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
      const out = process.stdout;
      out.write(`Sandbox invoicing service listening on ${sandbox.url}\n`);
      out.write(`  user:    ${sandbox.user}\n  API key: ${sandbox.apiKey}\n`);
      out.write(`  try:     curl -u ${sandbox.user}:${sandbox.apiKey} '${sandbox.url}/clients?count=5'\n`);
      out.write(
        `  use:     INVOICING_API_URL=${sandbox.url} INVOICING_API_USER=${sandbox.user} INVOICING_API_KEY=${sandbox.apiKey}\n`,
      );
      if (options.admin)
        out.write(
          `  admin:   ${sandbox.url.replace(/\/api\/v1$/, '')}/_admin/ (knobs, clock, fail, churn, records, calls)\n`,
        );
      out.write('Press Ctrl+C to stop.\n');
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
    });
}
