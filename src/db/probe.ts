/**
 * Checks, before the pool is made, that DATABASE_URL's host and port answer like PostgreSQL.
 * postgres.js retries a start-up that fails in a way it does not expect (an HTTP server, say)
 * without end and without a word; this probe asks the one question every PostgreSQL server answers
 * in one byte (an SSLRequest: 'S' or 'N') and names what it found instead.
 */
import { connect } from 'node:net';
import { ConfigError, RunError } from '../errors.js';

const CONNECT_TIMEOUT_MS = 10_000;
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

export async function checkIsPostgres(databaseUrl: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new ConfigError('DATABASE_URL: not a URL; expected postgres://user:password@host:port/database');
  }
  if (!/^postgres(ql)?:$/.test(url.protocol)) {
    throw new ConfigError(`DATABASE_URL: expected a postgres:// URL, got ${url.protocol}//…`);
  }
  // Several hosts, or a socket directory: leave those to the driver.
  if (url.hostname === '' || url.hostname.includes(',') || url.searchParams.has('host')) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 5432);
  const where = `${host}:${port}`;
  const answer = await new Promise<Buffer>((done, fail) => {
    const socket = connect({ host, port });
    let received: Buffer = Buffer.alloc(0);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) fail(error);
      else done(received);
    };
    const timer = setTimeout(
      () =>
        finish(
          new RunError(
            `DATABASE_URL: ${where} did not answer within ${timeoutMs / 1000} s; check the host, the port and any firewall`,
          ),
        ),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(SSL_REQUEST));
    socket.on('data', (chunk: Buffer) => {
      // A PostgreSQL server answers one byte and waits; anything longer is something else. The
      // first chunk decides: waiting to see whether more follows would cost every start that long.
      received = chunk;
      finish();
    });
    socket.on('end', () => finish());
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        new RunError(
          error.code === 'ECONNREFUSED'
            ? `DATABASE_URL: nothing listens at ${where}; start PostgreSQL there or fix the host and port`
            : error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN'
              ? `DATABASE_URL: the host ${host} is not known; fix the host name`
              : `DATABASE_URL: cannot reach ${where} (${error.code ?? error.message})`,
        ),
      ),
    );
  });
  const first = answer.toString('latin1', 0, 1);
  if (answer.length === 1 && (first === 'S' || first === 'N')) return;
  // 'E' is an error message from a server too old for SSLRequest (before 7.x): still PostgreSQL.
  if (first === 'E' && answer.length > 5) return;
  const found =
    answer.length === 0
      ? 'it closed the connection without a word'
      : `it answered ${JSON.stringify(printable(answer))}`;
  throw new RunError(`DATABASE_URL: ${where} is not a PostgreSQL server (${found}); check the port`);
}

function printable(answer: Buffer): string {
  const text = answer.toString('latin1', 0, 40).split(/\r?\n/)[0] ?? '';
  return text.replace(/[^\x20-\x7e]/g, '?');
}
