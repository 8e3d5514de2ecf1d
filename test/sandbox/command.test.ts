/** `invoice-mirror sandbox`: flag validation, output, serving until SIGTERM. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { registerSandboxCommand, sandboxOptionsFromFlags } from '../../src/commands/sandbox.js';

describe('sandbox command flags', () => {
  it('maps flags to options with defaults (port 4010, 500 records, seed 1)', () => {
    expect(sandboxOptionsFromFlags({})).toMatchObject({
      port: 4010,
      host: '127.0.0.1',
      records: 500,
      seed: 1,
      admin: false,
    });
    expect(
      sandboxOptionsFromFlags({
        port: '0',
        host: '0.0.0.0',
        records: '20',
        seed: '9',
        latency: '15',
        failureRate: '0.25',
        quota: '100',
        sendMs: '2.5',
        pageSize: '50',
        admin: true,
        accounts: '50',
      }),
    ).toEqual({
      port: 0,
      host: '0.0.0.0',
      records: 20,
      seed: 9,
      latencyMs: 15,
      failureRate: 0.25,
      hourlyQuota: 100,
      sendMsPerInvoice: 2.5,
      defaultPageSize: 50,
      admin: true,
      accounts: 50,
    });
    expect(sandboxOptionsFromFlags({ accounts: '10000' }).accounts).toBe(10_000);
    expect(sandboxOptionsFromFlags({}).accounts).toBeUndefined();
  });

  it.each([
    [{ port: '65536' }, '--port: must be an integer from 0 to 65535'],
    [{ port: 'abc' }, '--port: must be an integer from 0 to 65535'],
    [{ port: '80.5' }, '--port'],
    [{ records: '-1' }, '--records'],
    [{ seed: 'x' }, '--seed'],
    [{ latency: '-5' }, '--latency'],
    [{ failureRate: '1.5' }, '--failure-rate'],
    [{ quota: '1e3' }, '--quota'],
    [{ sendMs: 'fast' }, '--send-ms'],
    [{ pageSize: '0' }, '--page-size'],
    [{ host: '' }, '--host'],
    [{ accounts: '0' }, '--accounts: must be an integer from 1 to 10000'],
    [{ accounts: '10001' }, '--accounts: must be an integer from 1 to 10000'],
    [{ accounts: 'many' }, '--accounts: must be an integer from 1 to 10000'],
    [{ accounts: '2.5' }, '--accounts'],
  ])('rejects %o with a UsageError naming the flag', (flags, message) => {
    let error: unknown;
    try {
      sandboxOptionsFromFlags(flags);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toContain(message);
  });
});

describe('sandbox command', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints URL and credentials, serves an account readable with Basic auth, stops on SIGTERM', async () => {
    const others = process.listeners('SIGTERM');
    process.removeAllListeners('SIGTERM');
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const program = new Command().exitOverride();
    registerSandboxCommand(program.command('sandbox'));
    const running = program.parseAsync(['sandbox', '--port', '0', '--records', '50', '--admin'], { from: 'user' });
    try {
      await vi.waitFor(() => expect(out.join('')).toMatch(/Press Ctrl\+C/), { timeout: 5000 });
      const text = out.join('');
      const url = /listening on (\S+)/.exec(text)![1]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      expect(text).toContain('user:    sandbox');
      expect(text).toContain('API key: sandbox');
      const res = await fetch(`${url}/clients?count=-1`, {
        headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveLength(10);
      expect((await fetch(`${url}/clients`)).status).toBe(401);
    } finally {
      process.emit('SIGTERM', 'SIGTERM');
      await running;
      for (const l of others) process.on('SIGTERM', l);
    }
    expect(out.join('')).toContain('Sandbox stopped.');
  });

  it('a port in use is a UsageError', async () => {
    const { startSandbox } = await import('../../src/sandbox/index.js');
    const busy = await startSandbox({ records: 0 });
    const port = new URL(busy.url).port;
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const program = new Command().exitOverride();
    registerSandboxCommand(program.command('sandbox'));
    try {
      await expect(program.parseAsync(['sandbox', '--port', port], { from: 'user' })).rejects.toThrow(
        /--port: port \d+ is already in use/,
      );
    } finally {
      await busy.close();
    }
  });

  /** Runs the command until its start-up text is out; `stop` ends it. */
  async function run(args: string[]): Promise<{ text: string; stop: () => Promise<void> }> {
    const others = process.listeners('SIGTERM');
    process.removeAllListeners('SIGTERM');
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const program = new Command().exitOverride();
    registerSandboxCommand(program.command('sandbox'));
    const running = program.parseAsync(['sandbox', '--port', '0', ...args], { from: 'user' });
    const stop = async (): Promise<void> => {
      process.emit('SIGTERM', 'SIGTERM');
      await running;
      for (const l of others) process.on('SIGTERM', l);
    };
    try {
      await vi.waitFor(() => expect(out.join('')).toMatch(/Press Ctrl\+C/), { timeout: 5000 });
    } catch (e) {
      await stop();
      throw e;
    }
    return { text: out.join(''), stop };
  }

  it('--accounts N: lists the credentials scheme; --accounts-csv writes every account (mode 0600)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-accounts-'));
    const file = join(dir, 'accounts.csv');
    writeFileSync(file, 'old\n', { mode: 0o644 }); // a file that exists keeps no wider mode
    try {
      const { text, stop } = await run(['--records', '20', '--accounts', '3', '--accounts-csv', file]);
      try {
        const url = /listening on (\S+)/.exec(text)![1]!;
        expect(text).toContain('user:    sandbox\n  API key: sandbox\n');
        expect(text).toContain('accounts: 3');
        expect(text).toContain('user sandbox-i, API key sandbox-i-key (sandbox-2 … sandbox-3)');
        expect(text).toContain(`wrote:   ${file}`);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const csv = readFileSync(file, 'utf8');
        expect(csv).toBe(
          'name,api_url,api_user,api_key\n' +
            `sandbox-1,${url},sandbox,sandbox\n` +
            `sandbox-2,${url},sandbox-2,sandbox-2-key\n` +
            `sandbox-3,${url},sandbox-3,sandbox-3-key\n`,
        );
        const lists: unknown[] = [];
        for (const line of csv.trim().split('\n').slice(1)) {
          const [, apiUrl, user, key] = line.split(',');
          const res = await fetch(`${apiUrl}/clients?count=-1`, {
            headers: { authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}` },
          });
          expect(res.status, user).toBe(200);
          lists.push(await res.json());
        }
        expect(new Set(lists.map((l) => JSON.stringify(l))).size).toBe(3);
      } finally {
        await stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('one account prints no accounts lines; an --accounts-csv that cannot be written is a UsageError', async () => {
    const { text, stop } = await run(['--records', '0']);
    await stop();
    expect(text).not.toContain('accounts:');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const program = new Command().exitOverride();
    registerSandboxCommand(program.command('sandbox'));
    const missing = join(tmpdir(), 'no-such-dir-for-sandbox', 'a.csv');
    const failed = program.parseAsync(['sandbox', '--port', '0', '--accounts-csv', missing], { from: 'user' });
    await expect(failed).rejects.toThrow(UsageError);
    await expect(failed).rejects.toThrow(`--accounts-csv: cannot write ${missing}`);
  });
});
