/** docs/events.md lists every event type of the catalogue, with its example, as the script makes it. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES } from '../../src/catalog/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('docs/events.md', () => {
  it('is the catalogue: every type, with its meaning and an example', () => {
    const check = spawnSync(process.execPath, ['scripts/events-doc.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect({ code: check.status, stdout: check.stdout }).toEqual({ code: 0, stdout: '' });
    const doc = readFileSync(`${root}docs/events.md`, 'utf8');
    const headings = [...doc.matchAll(/^### `([a-z_.]+)`$/gm)].map((m) => m[1]);
    expect(headings).toEqual(EVENT_TYPE_NAMES);
    for (const type of [
      'invoice.sent',
      'invoice.paid',
      'invoice.partly_paid',
      'invoice.overdue',
      'invoice.reminder_sent',
      'invoice.deleted',
      'quotation.created',
      'quotation.sent',
      'quotation.approved',
      'quotation.status_changed',
      'saved_invoice.created',
      'saved_invoice.changed',
      'saved_invoice.deleted',
      'repeating_invoice.created',
      'repeating_invoice.changed',
      'repeating_invoice.deleted',
      'client.created',
      'client.changed',
      'client.deleted',
      'product.created',
      'product.changed',
      'product.deleted',
      'product.stock_changed',
      'job.succeeded',
      'job.failed',
      'job.interrupted',
      'sync.failed',
      'deletes.held',
    ])
      expect(EVENT_TYPE_NAMES).toContain(type);
  });
});
