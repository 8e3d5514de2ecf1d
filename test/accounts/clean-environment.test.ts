/**
 * The README's "Many accounts" commands, run verbatim by a shell in a clean environment: no
 * INVOICING_API_* setting, nothing but PATH, HOME, the database settings and the keys the commands
 * read (the only change to them: each `accounts add` gets the sandbox's address as `--api-url`,
 * where a user's would go to the real service). Then, in the same session, `config`, `backfill`,
 * `sync`, `backfill --account`, `jobs run` and `daemon` serve both accounts (the daemon with no
 * schedule or interval set either), and each account's mirror equals its account in the sandbox,
 * read from the sandbox's own store. Where the tests always set INVOICING_API_* (or point them at a
 * sandbox on this machine, which implies its credentials), this is the test without them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { CLI_PATH } from '../support/cli.js';
import { waitFor } from '../support/daemon.js';
import { expectMirrorEquals } from '../support/exact.js';
import { dropSchema, useTestDatabase } from '../support/test-database.js';

// Not migrated: the first `accounts add` makes the mirror, as for a new user.
const database = useTestDatabase({ migrate: false });
const KEYS = { acme: 'acme-key-0c9d7e5b1a', beta: 'beta-key-6f2e8d4c3b' };

/** The shell lines of the README's "Many accounts" example, as written there. */
function readmeCommands(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Many accounts\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README: no sh block in "Many accounts"');
  return block[1]!;
}

/**
 * One shell, as a person's terminal: each command's output and exit code land in files of the
 * session's directory, and the next command runs in the same shell (so `export` carries over).
 */
class Session {
  readonly dir = mkdtempSync(join(tmpdir(), 'clean-env-'));
  readonly home = join(this.dir, 'home');
  private readonly shell: ChildProcess;
  private count = 0;
  readonly outputs: string[] = [];

  constructor(env: Record<string, string>) {
    const bin = join(this.dir, 'bin');
    mkdirSync(bin);
    mkdirSync(this.home);
    // `invoice-mirror` on PATH, as an installed package puts it there.
    writeFileSync(join(bin, 'invoice-mirror'), `#!/bin/sh\nexec '${process.execPath}' '${CLI_PATH}' "$@"\n`);
    chmodSync(join(bin, 'invoice-mirror'), 0o755);
    this.shell = spawn('/bin/sh', [], {
      env: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, HOME: this.home, ...env },
      cwd: this.home,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  }

  /** Runs the lines in the shell and waits for them: their output, and the last one's exit code. */
  async run(lines: string, timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
    const n = ++this.count;
    const file = (ext: string) => join(this.dir, `${n}.${ext}`);
    this.shell.stdin!.write(
      `{\n${lines}\n} > '${file('out')}' 2> '${file('err')}'; echo $? > '${file('tmp')}'; mv '${file('tmp')}' '${file('rc')}'\n`,
    );
    await waitFor(`the shell to run: ${lines.split('\n')[0]}`, async () => existsSync(file('rc')), timeoutMs);
    const result = {
      code: Number(readFileSync(file('rc'), 'utf8')),
      stdout: readFileSync(file('out'), 'utf8'),
      stderr: readFileSync(file('err'), 'utf8'),
    };
    this.outputs.push(result.stdout + result.stderr);
    return result;
  }

  /** Starts the lines in the background; resolves to their pid. */
  async start(lines: string, output: string): Promise<number> {
    const pid = await this.run(`( ${lines} ) 2> '${join(this.dir, output)}' & echo $!`);
    return Number(pid.stdout.trim());
  }

  read(output: string): string {
    const path = join(this.dir, output);
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  }

  close(): void {
    this.shell.stdin!.end('exit\n');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let sandbox: Sandbox;
let session: Session;
const db = () => database.current.handle.db;

beforeAll(async () => {
  sandbox = await startSandbox({
    accounts: 2,
    seed: 41,
    credentials: [
      { user: 'acme', apiKey: KEYS.acme },
      { user: 'beta', apiKey: KEYS.beta },
    ],
    perEntity: { clients: 12, products: 8, quotations: 6, saved_invoices: 6, repeating_invoices: 4 },
    sentInvoices: 10,
  });
  session = new Session({
    DATABASE_URL: database.current.url,
    MIRROR_SCHEMA: database.current.schema,
    ACME_API_KEY: KEYS.acme,
    BETA_API_KEY: KEYS.beta,
    SANDBOX_API_URL: sandbox.url,
  });
});

afterAll(async () => {
  session?.close();
  await sandbox?.close();
  await dropSchema(database.current.url, database.current.schema);
});

/** What stderr says beyond the log's info lines (LOG_LEVEL is unset too): warnings, errors, other text. */
function complaints(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        return (JSON.parse(line) as { level?: number }).level! > 30;
      } catch {
        return true;
      }
    });
}

const accountId = async (name: string): Promise<number> =>
  Number((await db().selectFrom('accounts').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id);

async function expectBothExact(): Promise<void> {
  await expectMirrorEquals(db(), await accountId('acme'), sandbox.account(1), 'acme');
  await expectMirrorEquals(db(), await accountId('beta'), sandbox.account(2), 'beta');
}

describe('the README\'s "Many accounts", in a clean environment', () => {
  it('adds and lists the two accounts as the README shows, with no INVOICING_API_* setting', async () => {
    const commands = readmeCommands().replace(/invoice-mirror accounts add \S+/g, '$& --api-url "$SANDBOX_API_URL"');
    expect(commands.match(/--api-url/g)).toHaveLength(2);
    const result = await session.run(commands);
    expect(complaints(result.stderr)).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^added account acme \(user acme at http:/m);
    expect(result.stdout).toMatch(/^added account beta \(user beta at http:/m);
    expect(result.stdout).toMatch(/acme\s+active[\s\S]*beta\s+active/);
    const accounts = await db().selectFrom('accounts').select(['name', 'service_url']).orderBy('name').execute();
    expect(accounts).toEqual([
      { name: 'acme', service_url: sandbox.url },
      { name: 'beta', service_url: sandbox.url },
    ]);
  });

  it('config says the single-account settings are not needed', async () => {
    const config = await session.run('invoice-mirror config --json');
    expect(config.code).toBe(0);
    const settings = (JSON.parse(config.stdout) as { settings: { setting: string; source: string }[] }).settings;
    for (const name of ['INVOICING_API_USER', 'INVOICING_API_KEY'])
      expect(settings.find((s) => s.setting === name)?.source, name).toBe(
        'not needed: every account has its own credentials',
      );
  });

  it('backfill, sync and backfill --account serve both accounts: each mirror equals its account', async () => {
    const backfill = await session.run('invoice-mirror backfill');
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(complaints(backfill.stderr)).toEqual([]);
    expect(backfill.stdout).toMatch(/^account acme:$/m);
    expect(backfill.stdout).toMatch(/^account beta:$/m);
    await expectBothExact();

    // Changes upstream in both: the next sync brings them.
    sandbox.account(1).store.update('clients', 1, { company: 'Acme after the backfill' });
    sandbox.account(2).store.update('products', 2, { name: 'Beta product, renamed' });
    const sync = await session.run('invoice-mirror sync');
    expect(sync.code, sync.stderr).toBe(0);
    expect(complaints(sync.stderr)).toEqual([]);
    await expectBothExact();

    sandbox.account(1).store.update('clients', 4, { company: 'Acme, changed for the one-account backfill' });
    const one = await session.run('invoice-mirror backfill --account acme');
    expect(one.code, one.stderr).toBe(0);
    expect(complaints(one.stderr)).toEqual([]);
    await expectBothExact();
  });

  it("jobs run carries out both accounts' jobs against their own accounts", async () => {
    const [acmeProduct, betaProduct] = [sandbox.account(1), sandbox.account(2)].map((a) =>
      Number(a.store.list('products')[0]!.id),
    );
    const queued = await session.run(
      [
        `invoice-mirror jobs add set_product_stock '{"id": ${acmeProduct}, "stock": 17}' --account acme`,
        `invoice-mirror jobs add set_product_stock '{"id": ${betaProduct}, "stock": 29}' --account beta`,
      ].join(' && '),
    );
    expect(queued.code, queued.stderr).toBe(0);
    const run = await session.run('invoice-mirror jobs run');
    expect(run.code, run.stderr).toBe(0);
    expect(complaints(run.stderr)).toEqual([]);
    expect(run.stdout).toMatch(/^acme: job \d+ set_product_stock: succeeded$/m);
    expect(run.stdout).toMatch(/^beta: job \d+ set_product_stock: succeeded$/m);
    expect(sandbox.account(1).store.get('products', acmeProduct)?.stock).toBe(17);
    expect(sandbox.account(2).store.get('products', betaProduct)?.stock).toBe(29);
    await expectBothExact();
  });

  it('the daemon, with nothing set but the database, pulls both and runs their jobs; each mirror stays exact', async () => {
    const began = await sql<{ now: Date }>`select now()`.execute(db());
    sandbox.account(1).store.update('clients', 2, { company: 'Acme, seen by the daemon' });
    sandbox.account(2).store.update('clients', 3, { company: 'Beta, seen by the daemon' });
    // Port 0 (a free one) only because this machine is shared: the default port may be taken.
    const pid = await session.start('HEALTH_PORT=0 exec invoice-mirror daemon', 'daemon.err');
    const health = await waitFor(
      'the daemon to listen',
      async () => /health on (http:\/\/\S+)\/healthz/.exec(session.read('daemon.err'))?.[1],
      30_000,
    );
    const products = [sandbox.account(1), sandbox.account(2)].map((a) => Number(a.store.list('products')[1]!.id));
    const queued = await session.run(
      `invoice-mirror jobs add set_product_stock '{"id": ${products[0]}, "stock": 5}' --account acme && invoice-mirror jobs add set_product_stock '{"id": ${products[1]}, "stock": 6}' --account beta`,
    );
    expect(queued.code, queued.stderr).toBe(0);
    await waitFor(
      'both accounts pulled and their jobs run by the daemon',
      async () => {
        const { rows } = await sql<{ pulled: number; done: number }>`
          select (select count(distinct account_id) from sync_runs where kind = 'sync' and status = 'succeeded'
                   and started_at >= ${began.rows[0]!.now})::int as pulled,
                 (select count(*) from jobs where status = 'succeeded' and created_at >= ${began.rows[0]!.now})::int as done`.execute(
          db(),
        );
        return rows[0]!.pulled === 2 && rows[0]!.done === 2;
      },
      60_000,
    );
    expect(sandbox.account(1).store.get('products', products[0]!)?.stock).toBe(5);
    expect(sandbox.account(2).store.get('products', products[1]!)?.stock).toBe(6);
    await expectBothExact();
    const ready = await fetch(`${health}/readyz`);
    expect(ready.status).toBe(200);
    const stopped = await session.run(`kill -TERM ${pid}; wait ${pid}`);
    expect(stopped.code).toBe(0);
    // Its own line and a DB_POOL_SIZE warning (the default pool has room for one account at a time) at most.
    const said = complaints(session.read('daemon.err'));
    expect(said.filter((line) => !/^invoice-mirror daemon: health on |DB_POOL_SIZE has room for/.test(line))).toEqual(
      [],
    );
  });

  it('no key or master secret shows in anything the session printed', async () => {
    const all = session.outputs.join('\n') + session.read('daemon.err');
    for (const key of Object.values(KEYS)) expect(all).not.toContain(key);
    const { rows } = await sql<{ sealed: string }>`select api_key as sealed from accounts`.execute(db());
    for (const row of rows) expect(row.sealed).toMatch(/^v1:/);
  });
});
