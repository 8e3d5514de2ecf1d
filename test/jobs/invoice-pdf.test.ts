/**
 * Invoice PDFs: `invoice pdf ID` queues a `fetch_invoice_pdf` job when the PDF is not archived,
 * the job stores the service's bytes with their size and sha256, and the command then prints or
 * saves exactly those bytes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { jobRow, useJobsEnv } from './helpers.js';

const env = useJobsEnv();
const cliEnv = () => ({ ...env.database.current.env, INVOICING_API_URL: env.box.sandbox.url });

/** The PDF as the service serves it, read over plain HTTP. */
async function servicePdf(id: number): Promise<Buffer> {
  const auth = `Basic ${Buffer.from(`${env.box.sandbox.user}:${env.box.sandbox.apiKey}`).toString('base64')}`;
  const res = await request(`${env.box.sandbox.url}/invoices_pdf/${id}`, { headers: { authorization: auth } });
  return Buffer.from(await res.body.arrayBuffer());
}

describe('invoice pdf', () => {
  it('queues the fetch once, archives the exact bytes, then prints and saves them', async () => {
    const id = Number(env.box.sandbox.store.sentInvoices()[0]!.id);
    const first = await runCli(['invoice', 'pdf', String(id)], { env: cliEnv() });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(
      new RegExp(
        `^invoice-mirror: the PDF of invoice ${id} is not archived yet: job (\\d+) \\(fetch_invoice_pdf\\) is queued; `,
      ),
    );
    const jobId = Number(/job (\d+)/.exec(first.stderr)![1]);
    const again = await runCli(['invoice', 'pdf', String(id)], { env: cliEnv() });
    expect(again.stderr).toContain(`job ${jobId} (fetch_invoice_pdf) is queued`);

    expect(await env.runner().runUntilEmpty()).toEqual({ ran: 1, failed: 0 });
    const job = await jobRow(env.database.current.handle, jobId);
    const expected = await servicePdf(id);
    const sha256 = createHash('sha256').update(expected).digest('hex');
    expect(job.result).toMatchObject({ id, size_bytes: expected.length, sha256 });
    const row = await env.database.current.handle.db
      .selectFrom('invoice_pdfs')
      .selectAll()
      .where('invoice_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Buffer.compare(row.pdf, expected)).toBe(0);
    expect(row).toMatchObject({ size_bytes: expected.length, sha256, job_id: jobId });

    const out = join(mkdtempSync(join(tmpdir(), 'pdf-')), 'invoice.pdf');
    const saved = await runCli(['invoice', 'pdf', String(id), '--out', out], { env: cliEnv() });
    expect(saved.code).toBe(0);
    expect(saved.stderr).toContain(`wrote ${expected.length} bytes`);
    expect(Buffer.compare(readFileSync(out), expected)).toBe(0);
    const printed = await runCli(['invoice', 'pdf', String(id)], { env: cliEnv() });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(expected.toString('utf8'));
  });

  it('an unknown invoice is refused before anything is queued or called', async () => {
    const { handle } = env.database.current;
    const jobsBefore = (await handle.db.selectFrom('jobs').select('id').execute()).length;
    env.box.sandbox.clearCalls();
    const first = await runCli(['invoice', 'pdf', '999999'], { env: cliEnv() });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/^invoice-mirror: invoice 999999 is not in the mirror .*; nothing queued\n$/);
    expect((await handle.db.selectFrom('jobs').select('id').execute()).length).toBe(jobsBefore);
    expect(env.box.sandbox.calls).toHaveLength(0);
  });
});
