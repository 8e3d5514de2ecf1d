import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, destination };
}

describe('logging', () => {
  it('never writes the API key, the Authorization header or the database password', () => {
    const apiKey = 'k3y-Very-Secret-0123';
    const password = 'pa55-w0rd-Secret';
    loadConfig({
      INVOICING_API_USER: 'acme',
      INVOICING_API_KEY: apiKey,
      DATABASE_URL: `postgres://mirror:${password}@db.example:5432/books`,
    });
    const basic = Buffer.from(`acme:${apiKey}`).toString('base64');
    const { lines, destination } = capture();
    const log = createLogger({ level: 'debug', destination });

    log.info({ apiKey }, 'configured');
    log.info({ headers: { authorization: `Basic ${basic}` } }, 'request');
    log.warn(`request failed with Authorization: Basic ${basic}`);
    log.error(
      { err: new Error(`could not connect to postgres://mirror:${password}@db.example:5432/books`) },
      'db down',
    );
    log.debug({ nested: { deeper: { note: `the key is ${apiKey}` } } }, `key ${apiKey} in the message`);
    log.info({ url: 'postgres://someone:other-secret@host/db' }, 'unregistered url password');

    const output = lines.join('');
    expect(lines.length).toBe(6);
    for (const secret of [apiKey, password, basic, 'other-secret']) expect(output).not.toContain(secret);
    expect(output).toContain('[REDACTED]');
    expect(output).toContain('db.example:5432/books');
  });
});
