/**
 * The keeper: the one process per data directory that runs its PostgreSQL server (the lifecycle
 * as a whole is described in `embedded-server.ts`). It holds the directory's keeper address (a
 * second keeper finds it taken and leaves), starts the server as its child, starts it again
 * whenever it ends while commands hold it, counts the commands connected to it as its holders,
 * and stops the server (fast shutdown) and itself once none has been connected for the idle time.
 *
 * Everything it decides, it decides alone in one event loop: a command is a holder from the
 * moment its connection is accepted, and stopping begins by closing the listener in the same turn
 * as the count found none, so no command can slip in between; one that comes later finds no
 * keeper, starts a new one, and that one waits for this server to be gone before starting its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunError, errorMessage } from '../errors.js';
import {
  SOCKET_PORT,
  askFastShutdown,
  connectionOf,
  freePort,
  lastLogLine,
  postgresBinaries,
  postmasterAlive,
  readPidFile,
  socketDirectory,
  type Binaries,
  type RunAs,
  type ServerConnection,
} from './embedded-postgres.js';
import {
  keeperAddress,
  listenExclusively,
  onMessages,
  send,
  type FromKeeper,
  type KeeperReport,
  type ToKeeper,
} from './keeper-protocol.js';

export interface KeeperOptions {
  /** The absolute path of the data directory. */
  dataDir: string;
  /** How long the server runs on after the last holder left. */
  idleStopMs: number;
  /** Extra server settings (`name=value`). */
  settings: string[];
  /** Also listen on 127.0.0.1 at this port (the tests' shared server). */
  tcpPort?: number;
  /** As root: the `postgres` user the server runs as (the command found or made it). */
  runAs?: RunAs;
}

/** Keeps the directory's server until there is nothing left to keep; false when another keeper does. */
export async function runKeeper(options: KeeperOptions): Promise<boolean> {
  const keeper = new Keeper(options, options.runAs);
  return keeper.run();
}

/** Starts that fail this often in a row are reported to the holders (one or two are a crash's aftermath). */
const REPORT_AFTER_FAILURES = 3;
/** The pause before starting the server again, by the failed starts before it. */
const RESTART_DELAYS_MS = [100, 250, 500, 1000, 2000];
/** How long a new keeper waits for its first holder (the command that started it). */
const FIRST_HOLDER_MS = 10_000;
/** How long a server left running by a killed keeper may take to stop. */
const ORPHAN_STOP_MS = 60_000;

interface Holder {
  pid: number;
  command: string;
  since: Date;
}

interface Postmaster {
  pid: number;
  binaries: Binaries;
  startedAt: Date;
  /** Resolves with how it ended. */
  exited: Promise<string>;
  sentinel: ChildProcess | undefined;
}

class Keeper {
  private readonly since = new Date();
  private readonly holders = new Map<Socket, Holder>();
  private readonly listener = createServer((socket) => this.admit(socket));
  private postmaster: Postmaster | undefined;
  /** Where the server answers, while it is ready. */
  private connection: ServerConnection | undefined;
  /** The failure of the last starts, once they failed REPORT_AFTER_FAILURES times in a row. */
  private failure: string | undefined;
  private port: number | undefined;
  private idle: NodeJS.Timeout | undefined;
  private stopping = false;
  private finished!: () => void;

  constructor(
    private readonly options: KeeperOptions,
    private readonly runAs: RunAs | undefined,
  ) {}

  async run(): Promise<boolean> {
    const address = keeperAddress(this.options.dataDir, this.runAs);
    if (!(await listenExclusively(this.listener, address))) return false;
    const done = new Promise<void>((resolve) => (this.finished = resolve));
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.on(signal, () => void this.shutdown(`asked to stop (${signal})`));
    }
    this.log(`keeping the server of ${this.options.dataDir}`);
    // The command that started this keeper connects within moments, even with no idle time at all.
    this.awaitHolders(Math.max(this.options.idleStopMs, FIRST_HOLDER_MS));
    void this.supervise();
    await done;
    return true;
  }

  /** A command connected: it holds the server until its connection closes (its process ends). */
  private admit(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    this.holders.set(socket, { pid: 0, command: 'unknown', since: new Date() });
    clearTimeout(this.idle);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      this.holders.delete(socket);
      this.awaitHolders();
    });
    onMessages<ToKeeper>(socket, (message) => this.answer(socket, message));
  }

  private answer(socket: Socket, message: ToKeeper): void {
    const holder = this.holders.get(socket);
    if ('hello' in message && holder) {
      holder.pid = Number(message.hello.pid) || 0;
      holder.command = String(message.hello.command).slice(0, 200);
      if (this.connection) send(socket, { ready: this.connection });
      else if (this.failure) send(socket, { failed: this.failure });
    } else if ('who' in message) {
      send(socket, { report: this.report() });
    } else if ('stop' in message) {
      void this.shutdown(`asked to stop by process ${holder?.pid ?? 'unknown'}`);
    }
  }

  private report(): KeeperReport {
    const server = this.connection && this.postmaster;
    return {
      keeper: { pid: process.pid, since: this.since.toISOString() },
      server: server ? { pid: server.pid, since: server.startedAt.toISOString() } : null,
      holders: [...this.holders.values()].map((h) => ({
        pid: h.pid,
        command: h.command,
        since: h.since.toISOString(),
      })),
    };
  }

  private broadcast(message: FromKeeper): void {
    for (const socket of this.holders.keys()) send(socket, message);
  }

  /** With no holder left, the server stops after the idle time unless one comes meanwhile. */
  private awaitHolders(ms = this.options.idleStopMs): void {
    if (this.holders.size > 0 || this.stopping) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.shutdown(`no command has used it for ${ms / 1000} s`), ms);
  }

  /** Starts the server, and again whenever it ends while it is held, until the keeper stops. */
  private async supervise(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let ended: string | undefined;
      try {
        const { exited } = await this.startServer();
        failures = 0;
        this.failure = undefined;
        this.broadcast({ ready: this.connection! });
        ended = await exited;
      } catch (error) {
        failures++;
        this.startFailed(error, failures);
      }
      this.connection = undefined;
      if (this.stopping) return;
      if (!existsSync(join(this.options.dataDir, 'PG_VERSION'))) {
        return this.shutdown('its data directory is gone');
      }
      if (ended !== undefined) {
        // Nobody needs it: the next command starts it (and a keeper) again.
        if (this.holders.size === 0) return this.shutdown(`its server ended (${ended}) while no command used it`);
        this.log(`its server ended (${ended}); starting it again`);
        this.broadcast({ down: `its server process ended (${ended})` });
      }
      await sleep(RESTART_DELAYS_MS[Math.min(failures, RESTART_DELAYS_MS.length - 1)]);
    }
  }

  private startFailed(error: unknown, failures: number): void {
    const message = error instanceof RunError ? errorMessage(error) : `cannot start it: ${errorMessage(error)}`;
    this.log(`the server did not start (${failures} in a row); trying again`);
    if (failures < REPORT_AFTER_FAILURES) return;
    this.failure = message;
    this.broadcast({ failed: message });
  }

  /** Starts the server as this process's child; resolves once it is ready (`exited`: to how it ends). */
  private async startServer(): Promise<{ exited: Promise<string> }> {
    const { dataDir } = this.options;
    const binaries = await postgresBinaries(this.runAs);
    await this.endOrphan(binaries);
    const windows = process.platform === 'win32';
    this.port ??= this.options.tcpPort ?? (windows ? await freePort() : SOCKET_PORT);
    const settings = [
      // No TCP but the tests' port (Windows, which has no Unix socket for Node: loopback only).
      `listen_addresses=${windows || this.options.tcpPort ? '127.0.0.1' : ''}`,
      `unix_socket_directories=${windows ? '' : socketDirectory(dataDir, this.port, this.runAs)}`,
      ...this.options.settings,
    ];
    const log = openSync(join(dataDir, 'server.log'), 'a');
    let child: ChildProcess;
    try {
      child = spawn(
        binaries.postgres,
        ['-D', dataDir, '-p', String(this.port), ...settings.flatMap((s) => ['-c', s])],
        {
          detached: true, // its own process group: a signal to the keeper's is not one to the server
          stdio: ['ignore', log, log],
          env: { ...process.env, LC_MESSAGES: 'C', ...(this.runAs ? { HOME: dataDir } : {}) },
          ...(this.runAs ? { uid: this.runAs.uid, gid: this.runAs.gid } : {}),
        },
      );
    } finally {
      closeSync(log);
    }
    const exited = new Promise<string>((done) => {
      child.once('exit', (code, signal) => done(signal ? `killed by ${signal}` : `exit code ${code}`));
      child.once('error', (error) => done(`cannot run ${binaries.postgres}: ${errorMessage(error)}`));
    });
    const postmaster: Postmaster = {
      pid: child.pid ?? 0,
      binaries,
      startedAt: new Date(),
      exited,
      sentinel: undefined,
    };
    postmaster.sentinel = this.sentinel(postmaster.pid);
    this.postmaster = postmaster;
    void exited.then(() => {
      postmaster.sentinel?.kill('SIGKILL');
      if (this.postmaster === postmaster) this.postmaster = undefined;
    });
    this.connection = await serverReady(dataDir, postmaster.pid, exited);
    return { exited };
  }

  /**
   * A server that runs without a keeper (its keeper was killed; or an earlier version of the
   * program started it): stopped with a fast shutdown, so that this keeper's own is the only one.
   */
  private async endOrphan(binaries: Binaries): Promise<void> {
    const { dataDir } = this.options;
    const pidFile = readPidFile(dataDir);
    if (!pidFile || !postmasterAlive(pidFile.pid)) return;
    // Windows: the port its holders' connections come back to.
    if (pidFile.port > 0) this.port ??= pidFile.port;
    this.log(`a server without a keeper runs (pid ${pidFile.pid}): stopping it to start it again as its keeper`);
    try {
      askFastShutdown(pidFile.pid, binaries);
    } catch (error) {
      throw new RunError(
        `cannot stop the server left running in ${dataDir} (process ${pidFile.pid}: ${(error as NodeJS.ErrnoException).code}); stop it as its user, or run as that user`,
      );
    }
    const end = Date.now() + ORPHAN_STOP_MS;
    while (postmasterAlive(pidFile.pid)) {
      if (Date.now() > end) throw new RunError(`the server left running in ${dataDir} did not stop within 60 s`);
      await sleep(25);
    }
  }

  /**
   * Unix: a shell that waits on a pipe from this process and, when the pipe closes because the
   * keeper died (kill -9, the OOM killer), asks its server for a fast shutdown, so that no server
   * is left running without a keeper when no command is there to start a new one.
   */
  private sentinel(pid: number): ChildProcess | undefined {
    if (process.platform === 'win32' || pid === 0) return undefined;
    const script =
      'read -r _; { read -r first < "$1/postmaster.pid"; } 2>/dev/null; [ "$first" = "$2" ] && kill -INT "$2"';
    const child = spawn('/bin/sh', ['-c', script, 'invoice-mirror-sentinel', this.options.dataDir, String(pid)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    return child;
  }

  /** Stops the server (fast shutdown: sessions are ended, work in progress rolls back) and the keeper. */
  private async shutdown(reason: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.idle);
    // From here on a command finds no keeper and starts a new one, which waits for this server to stop.
    this.listener.close();
    this.log(`stopping: ${reason}`);
    const postmaster = this.postmaster;
    if (postmaster) {
      try {
        askFastShutdown(postmaster.pid, postmaster.binaries);
      } catch {
        // already gone
      }
      await postmaster.exited;
    }
    this.log('stopped');
    this.finished();
  }

  private log(message: string): void {
    process.stderr.write(`${new Date().toISOString()} [${process.pid}] invoice-mirror keeper: ${message}\n`);
  }
}

/** Waits for the server `pid` to say it is ready in its pid file; fails with its log's last line when it ends first. */
async function serverReady(dataDir: string, pid: number, exited: Promise<string>): Promise<ServerConnection> {
  let ended: string | undefined;
  void exited.then((how) => (ended = how));
  for (;;) {
    const pidFile = readPidFile(dataDir);
    if (pidFile?.pid === pid && pidFile.status === 'ready') return connectionOf(pidFile);
    if (ended !== undefined) {
      const why = ended.startsWith('cannot run') ? ended : lastLogLine(dataDir);
      throw new RunError(`the embedded database in ${dataDir} did not start: ${why}`);
    }
    await sleep(15);
  }
}
