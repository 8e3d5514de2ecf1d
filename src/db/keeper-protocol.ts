/**
 * How a command and the keeper of its data directory talk (see `embedded-server.ts`): the one
 * address per data directory that only one keeper can hold at a time, and the messages, one JSON
 * object per line over the connection that is the command's hold on the server.
 */
import { createHash } from 'node:crypto';
import { constants, openSync, rmSync } from 'node:fs';
import { connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { SOCKET_PORT, socketDirectory, type RunAs, type ServerConnection } from './embedded-postgres.js';

/**
 * Where the keeper of `dataDir` (its real path) listens. Linux: an abstract socket name, which the
 * kernel gives to one process at a time and takes back when it dies. Windows: a named pipe, the
 * same. Elsewhere (macOS): a socket file in the server's socket directory, guarded by a lock (see
 * `listenExclusively`).
 */
export function keeperAddress(dataDir: string, runAs: RunAs | undefined): string {
  const id = createHash('sha256').update(dataDir).digest('hex').slice(0, 24);
  if (process.platform === 'linux') return `\0invoice-mirror-keeper-${id}`;
  if (process.platform === 'win32') return `\\\\.\\pipe\\invoice-mirror-keeper-${id}`;
  return join(socketDirectory(dataDir, SOCKET_PORT, runAs), '.s.keeper');
}

export interface HolderReport {
  pid: number;
  /** What it runs, as it said (`invoice-mirror daemon`). */
  command: string;
  /** ISO time it connected. */
  since: string;
}

export interface KeeperReport {
  keeper: { pid: number; since: string };
  /** The PostgreSQL server while it runs. */
  server: { pid: number; since: string } | null;
  holders: HolderReport[];
}

/** From a command to the keeper: who it is (on connecting), who holds the server, stop it now. */
export type ToKeeper = { hello: { pid: number; command: string } } | { who: true } | { stop: true };

/**
 * From the keeper to its holders: the server is ready (where), it ended and is started again
 * (how it ended), starting it failed repeatedly and is tried again (the log's line), the report
 * asked for.
 */
export type FromKeeper = { ready: ServerConnection } | { down: string } | { failed: string } | { report: KeeperReport };

export function send(socket: Socket, message: ToKeeper | FromKeeper): void {
  if (socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls `onMessage` with each message the socket brings; a peer that sends anything else is cut off. */
export function onMessages<T>(socket: Socket, onMessage: (message: T) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      let message: T;
      try {
        message = JSON.parse(line) as T;
      } catch {
        socket.destroy();
        return;
      }
      onMessage(message);
    }
    if (buffered.length > 65_536) socket.destroy();
  });
}

/** A connection to the keeper at `address`; fails (ECONNREFUSED, ENOENT) when none listens there. */
export function dial(address: string): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect(address);
    socket.once('connect', () => {
      socket.off('error', fail);
      done(socket);
    });
    socket.once('error', fail);
  });
}

/** The errors of dialling an address where no keeper listens (yet, or any longer). */
export const NO_KEEPER = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET']);

/** BSD's flag to open(2) with an exclusive lock (macOS, FreeBSD); Node's `fs.constants` lacks it. */
const O_EXLOCK = 0x20;

/**
 * Listens on the keeper's address unless another keeper holds it (then false). An abstract name
 * or a pipe is exclusive by itself. A socket file outlives a killed keeper, so it is guarded by a
 * lock the kernel holds for this process until it dies (open with O_EXLOCK): whoever has the lock
 * removes a file left behind and listens.
 */
export async function listenExclusively(server: Server, address: string): Promise<boolean> {
  if (!address.startsWith('\0') && !address.startsWith('\\\\.\\pipe\\')) {
    try {
      // Kept open for the life of the process: the lock goes with it.
      openSync(`${address}.lock`, constants.O_RDWR | constants.O_CREAT | constants.O_NONBLOCK | O_EXLOCK, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return false;
      throw error;
    }
    rmSync(address, { force: true });
  }
  return new Promise((done, fail) => {
    const failed = (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? done(false) : fail(error));
    server.once('error', failed);
    server.listen(address, () => {
      server.off('error', failed);
      done(true);
    });
  });
}
