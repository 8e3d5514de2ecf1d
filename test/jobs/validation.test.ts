/**
 * Jobs that must fail before any call: payloads that do not validate (garbage inserted by plain
 * SQL included) and actions the mirror already shows to be impossible.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { addJob, parseJob, PayloadError } from '../../src/jobs/index.js';
import { runCli } from '../support/cli.js';
import { insertJob, jobRow, useJobsEnv } from './helpers.js';

const env = useJobsEnv();
const cliEnv = () => ({ ...env.database.current.env, INVOICING_API_URL: env.box.sandbox.url });

/** Queues the jobs, runs them, and checks each failed at once, with no call to the service. */
async function expectFailedWithoutCalls(jobs: Array<{ id: number; error: string | RegExp }>) {
  env.box.sandbox.clearCalls();
  const outcome = await env.runner().runUntilEmpty();
  expect(outcome).toEqual({ ran: jobs.length, failed: jobs.length });
  expect(env.box.sandbox.calls).toEqual([]);
  for (const { id, error } of jobs) {
    const job = await jobRow(env.database.current.handle, id);
    expect(job.status).toBe('failed');
    expect(job.attempts).toBe(1);
    if (typeof error === 'string') expect(job.last_error).toBe(error);
    else expect(job.last_error).toMatch(error);
    expect(job.errors).toEqual([expect.objectContaining({ attempt: 1, outcome: 'failed', error: job.last_error })]);
    expect(job.finished_at).not.toBeNull();
  }
}

describe('payloads that do not validate', () => {
  it('garbage inserted by plain SQL fails cleanly, naming the field, and nothing is sent', async () => {
    const { db } = env.database.current.handle;
    const raw = async (kind: string, payload: string) => {
      const { rows } = await sql<{
        id: number;
      }>`insert into jobs (kind, payload) values (${kind}, cast(${payload} as text)::jsonb) returning id`.execute(db);
      return Number(rows[0]!.id);
    };
    const jobs = [
      {
        id: await raw('send_saved_invoices', '"{\\"ids\\": [1], \\"delete\\": true}"'),
        error: 'payload: must be a JSON object, got string',
      },
      { id: await raw('send_saved_invoices', '[1, 2]'), error: 'payload: must be a JSON object, got an array' },
      {
        id: await raw('send_saved_invoices', '{"ids": "12", "delete": true}'),
        error: 'payload.ids: must be a list of saved invoice ids',
      },
      {
        id: await raw('send_saved_invoices', '{"ids": [12, -3], "delete": true}'),
        error: 'payload.ids.1: must be a positive id',
      },
      {
        id: await raw('send_saved_invoices', '{"ids": [], "delete": true}'),
        error: 'payload.ids: name at least one saved invoice id',
      },
      { id: await raw('send_saved_invoices', '{"ids": [12]}'), error: 'payload.delete: is required' },
      {
        id: await raw('send_saved_invoices', '{"ids": [12], "delete": true, "dlete": false}'),
        error: "payload: unknown field 'dlete' (did you mean 'delete'?)",
      },
      { id: await raw('set_product_stock', '{"id": 1, "stock": "many"}'), error: 'payload.stock: must be a number' },
      {
        id: await raw('approve_quotation', '{"id": 2, "name": "X", "date": "30-10-2026"}'),
        error: 'payload.date: must be a date YYYY-MM-DD',
      },
      {
        id: await raw('set_quotation_status', '{"id": 2, "customstatus": "done"}'),
        error: 'payload.customstatus: must be one of progress, completed, billable, declined, clear',
      },
      {
        id: await raw('update_client', '{"clientnr": 2, "changes": {"compnay": "X"}}'),
        error: "payload.changes: unknown field 'compnay' (did you mean 'company'?)",
      },
      {
        id: await raw('update_client', '{"clientnr": 2, "changes": {}}'),
        error: 'payload.changes: name at least one field to change',
      },
      {
        id: await raw('create_client', '{"client": {"zipcode": "1234 AB extra"}}'),
        error: 'payload.client.zipcode: at most 7 characters',
      },
      {
        id: await raw('create_product', '{"product": {"name": "X", "price": 1.2345}}'),
        error: 'payload.product.price: at most 3 decimals',
      },
      {
        id: await raw('create_quotation', '{"quotation": {"action": "send", "clientnr": 2}}'),
        error: 'payload.quotation.sendmethod: is required when action is send (email, mail or printcenter)',
      },
      { id: await raw('delete_client', '{}'), error: 'payload.clientnr: is required' },
    ];
    await expectFailedWithoutCalls(jobs);
  });

  it('a kind misspelled in SQL is refused at INSERT, by a constraint that names the known kinds', async () => {
    const { db } = env.database.current.handle;
    for (const kind of ['send_invoices', ''])
      await expect(sql`insert into jobs (kind, payload) values (${kind}, '{}')`.execute(db)).rejects.toThrow(
        /violates check constraint "jobs_kind_known"/,
      );
    const { rows } = await sql<{ comment: string }>`
      select obj_description(oid, 'pg_constraint') as comment from pg_constraint where conname = 'jobs_kind_known'
        and conrelid = 'jobs'::regclass`.execute(db);
    expect(rows[0]!.comment).toMatch(/^kind must be one of: send_saved_invoices, delete_saved_invoice, /);
  });

  it('a misspelled field or kind gets a "did you mean", and the unknown field is named first', () => {
    const problem = (kind: string, payload: unknown) => {
      try {
        parseJob(kind, payload);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(problem('set_product_stock', { id: 1, stok: 5 })).toBe(
      "payload: unknown field 'stok' (did you mean 'stock'?)",
    );
    expect(problem('set_product_stok', { id: 1, stock: 5 })).toMatch(
      /^kind: unknown job kind 'set_product_stok' \(did you mean 'set_product_stock'\?\) \(known: send_saved_invoices, /,
    );
    expect(problem('set_product_stock', { id: 1, stock: 5, colour: 'red' })).toBe("payload: unknown field 'colour'");
  });

  it('addJob validates before queuing', async () => {
    const { db } = env.database.current.handle;
    const before = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await expect(addJob(db, env.account().id, { kind: 'delete_product', payload: { id: 'x' } })).rejects.toThrow(
      new PayloadError('payload.id: must be a whole number'),
    );
    const after = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(parseJob('send_saved_invoices', { ids: [3, 3, 4], delete: false }).payload).toEqual({
      ids: [3, 4],
      delete: false,
    });
  });

  it('create_invoice: what each action needs, and only then', () => {
    const problem = (invoice: unknown) => {
      try {
        parseJob('create_invoice', { invoice });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(problem({ action: 'save', clientnr: 1 })).toBe('payload.invoice.savename: is required when action is save');
    expect(problem({ action: 'repeat', clientnr: 1, initialdate: '2027-01-01' })).toBe(
      'payload.invoice.frequency: is required when action is repeat',
    );
    expect(problem({ action: 'send', clientnr: 1, frequency: 'monthly' })).toBe(
      'payload.invoice.frequency: is only for action repeat',
    );
    expect(problem({ action: 'print', clientnr: 1 })).toBe('payload.invoice.action: must be send, save or repeat');
    expect(problem({ action: 'send', clientnr: 1, linez: [] })).toBe(
      "payload.invoice: unknown field 'linez' (did you mean 'lines'?)",
    );
    expect(problem({ action: 'send', clientnr: 1 })).toBe('accepted');
  });

  it('payments: an amount is a positive number or "full", with a date; the method defaults to bank', () => {
    const problem = (payload: unknown) => {
      try {
        parseJob('register_payment', payload);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(problem({ id: 4, amount: 'half', date: '2026-11-01' })).toBe('payload.amount: must be a number or "full"');
    expect(problem({ id: 4, amount: -3, date: '2026-11-01' })).toBe('payload.amount: must be more than 0');
    expect(problem({ id: 4, amount: 3 })).toBe('payload.date: is required');
    expect(problem({ id: 4, amount: 3, date: '2026-11-01', methode: 'bank' })).toBe(
      "payload: unknown field 'methode' (did you mean 'method'?)",
    );
    expect(parseJob('register_payment', { id: 4, amount: 'full', date: '2026-11-01' }).payload).toEqual({
      id: 4,
      amount: 'full',
      date: '2026-11-01',
      method: 'bank',
    });
  });
});

describe('checks against the mirror before any call', () => {
  it('approving, un-approving or setting the status of a draft quotation fails, with no call', async () => {
    const handle = env.database.current.handle;
    const draft = 8;
    expect(env.box.sandbox.store.get('quotations', draft)!.sent).toBe('false');
    await expectFailedWithoutCalls([
      {
        id: await insertJob(handle, 'approve_quotation', { id: draft, name: 'X', date: '2026-10-30', comments: '' }),
        error: `quotation ${draft} is a draft (not sent); only a sent quotation can be approved. Send it first (send_quotation)`,
      },
      {
        id: await insertJob(handle, 'set_quotation_status', { id: draft, customstatus: 'progress' }),
        error: /^quotation 8 is a draft \(not sent\); only a sent quotation can have a custom status/,
      },
      { id: await insertJob(handle, 'remove_quotation_approval', { id: draft }), error: /^quotation 8 is a draft/ },
      {
        id: await insertJob(handle, 'send_quotation', { id: 2, sendmethod: 'email' }),
        error: 'quotation 2 has already been sent (only a draft can be sent)',
      },
    ]);
  });

  it('sending ids that are not live saved invoices fails before the first call', async () => {
    const handle = env.database.current.handle;
    // 5 is deleted upstream and the mirror knows it; 999 never existed.
    await env.box.client.deleteSavedInvoice(5);
    await sql`update saved_invoices set deleted_at = now() where id = 5`.execute(handle.db);
    await expectFailedWithoutCalls([
      {
        id: await insertJob(handle, 'send_saved_invoices', { ids: [1, 2, 3, 4, 5, 6], delete: true }),
        error: /^saved invoice 5 no longer exists \(the mirror marked it deleted at /,
      },
      {
        id: await insertJob(handle, 'send_saved_invoices', { ids: [998, 2, 999], delete: false }),
        error:
          /^saved invoice 998, 999 are not in the mirror \(last complete pull of saved_invoices at .*\); run 'invoice-mirror sync' first if they were created since$/,
      },
      { id: await insertJob(handle, 'delete_saved_invoice', { id: 5 }), error: /^saved invoice 5 no longer exists/ },
      {
        id: await insertJob(handle, 'update_product', { id: 555, changes: { name: 'X' } }),
        error: /^product 555 is not in the mirror/,
      },
      {
        id: await insertJob(handle, 'create_quotation', { quotation: { action: 'save', clientnr: 777 } }),
        error: /^client 777 is not in the mirror/,
      },
    ]);
    // Nothing was sent: every saved invoice of the first job is still there.
    for (const id of [1, 2, 3, 4, 6]) expect(env.box.sandbox.store.get('saved_invoices', id)).toBeDefined();
  });

  it('are made when a job is queued too: refused with the same reason, nothing queued; --force queues it anyway', async () => {
    const { db } = env.database.current.handle;
    const draft = 8;
    const approval = { id: draft, name: 'X', date: '2026-10-30', comments: '' };
    const reason = `quotation ${draft} is a draft (not sent); only a sent quotation can be approved. Send it first (send_quotation)`;
    const count = async () => Number((await sql<{ n: string }>`select count(*) as n from jobs`.execute(db)).rows[0]!.n);
    const before = await count();
    await expect(addJob(db, env.account().id, { kind: 'approve_quotation', payload: approval })).rejects.toThrow(
      reason,
    );
    expect(await count()).toBe(before);

    const cli = await runCli(['jobs', 'add', 'approve_quotation', JSON.stringify(approval)], { env: cliEnv() });
    expect(cli).toMatchObject({
      code: 1,
      stderr: `invoice-mirror: ${reason}; nothing queued (--force queues it anyway, if the mirror is behind)\n`,
    });
    expect(await count()).toBe(before);

    const forced = await runCli(['jobs', 'add', 'approve_quotation', JSON.stringify(approval), '--force'], {
      env: cliEnv(),
    });
    expect(forced.code).toBe(0);
    await expectFailedWithoutCalls([{ id: Number(forced.stdout.trim()), error: reason }]);
  });
});
