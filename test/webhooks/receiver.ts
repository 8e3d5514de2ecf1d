/**
 * A webhook receiver inside the test: records every request (headers, body, the answer given) and
 * answers as the test says.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status to answer a request with (default 200); `null` never answers. */
  answer: (request: { headers: IncomingHttpHeaders; body: string }, index: number) => number | null;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver = { received: [] as Received[], answer: () => 200 } as unknown as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = receiver.answer({ headers: req.headers, body }, receiver.received.length);
      receiver.received.push({ headers: req.headers, body, status: status ?? 0 });
      if (status === null) return;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'try again later');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
