/**
 * The exports of generated accounts, pulled from the sandbox into a test schema by the real sync:
 * a Dutch account of 4,300 sent invoices (shifted, intra-EU, export, 0 %, credit notes, the
 * oddities of old records), with payments the mirror registered through register_payment jobs and
 * payments it observed between two pulls; and a Belgian one (accounts.vat_country BE).
 *
 * - The XAF of 2026 (more than 2,000 invoices) is valid against the XAF 4.0 XSD, balanced per
 *   transaction and in total (read back from the file), its sales the sandbox's invoices, its
 *   payments what the sandbox says was paid, its revenue on the categories' ledgers, and its VAT
 *   per rubric equal to the Dutch return of 2026 as worked out in the test from the sandbox's
 *   records (test/reports/expected-vat.ts), to the cent.
 * - 500 UBL documents, across the categories S, Z, AE, K, G and credit notes of both accounts, pass
 *   the UBL 2.1 XSD and both Peppol rule sets (the Belgian ones the ubl-BE rules too) with no fatal
 *   finding; every document's categories are the classification's, and every invoice is a document
 *   or a problem with its reason. UBL_SAMPLE changes the 500.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { readPayments } from '../../src/exports/payments.js';
import { yearPeriod } from '../../src/exports/period.js';
import { type UblExport, ublExport, xafExport } from '../../src/exports/run.js';
import { buildXaf } from '../../src/exports/xaf.js';
import { JobRunner } from '../../src/jobs/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { generateCategories } from '../../src/sandbox/reference.js';
import { runSync } from '../../src/sync/index.js';
import { clientFor, pullerFor, useSandbox } from '../support/sandbox.js';
import { checkBelgian, checkPeppol, fatal } from '../support/schematron.js';
import { testSession, useTestDatabase } from '../support/test-database.js';
import { validateUbl, validateXaf } from '../support/xsd.js';
import { BELGIAN_SELLER, SELLER } from './fixtures.js';
import { oracleEntries, readXaf, rubricOfCode, yearRubrics } from './sandbox-books.js';

const database = useTestDatabase();
const env = useSandbox({ records: 300, sentInvoices: 4300, now: '2027-01-10T12:00:00Z' });
const SAMPLE = Number(process.env.UBL_SAMPLE ?? 500);
const db = () => database.current.handle.db;
const centsOf = (text: unknown) => Math.round(Number(text) * 100);
type Wire = Record<string, unknown>;

let belgium: Sandbox;
let belgianId = 0;
/** Credit notes whose reference the test set to name the invoice they correct. */
const referenced = new Map<number, string>();
const registered: { id: number; amount: number; date: string }[] = [];
const observed: { id: number; open: number }[] = [];

/** Half the Dutch credit notes name, in their reference, an earlier invoice of the same client. */
function referenceCreditNotes(invoices: Wire[]): void {
  const store = env.sandbox.store;
  for (const credit of invoices.filter((i) => Number(i.totalintax) < 0 && i.sent !== '' && Number(i.id) % 2 === 0)) {
    const original = invoices.find(
      (i) =>
        i.clientnr === credit.clientnr &&
        Number(i.totalintax) > 0 &&
        i.sent !== '' &&
        String(i.sent) <= String(credit.sent),
    );
    if (!original) continue;
    store.setInvoiceWire(Number(credit.id), {
      reference: { line1: `Creditering van ${original.invoicenr}`, line2: '', line3: '' },
    });
    referenced.set(Number(credit.id), String(original.invoicenr));
  }
}

/** Open invoices of 2026 not written off, for the payments. */
const open2026 = () =>
  env.sandbox.store
    .sentInvoices()
    .filter((i) => String(i.sent).startsWith('2026-') && Number(i.open) > 20 && i.uncollectible === '');

/** Three payments registered by the mirror's register_payment jobs, run by the job runner against the sandbox. */
async function registerPayments(): Promise<void> {
  const { handle, schema, url, accountId } = database.current;
  for (const invoice of open2026().slice(0, 3)) {
    const amount = Math.floor(Number(invoice.open) / 2);
    registered.push({ id: Number(invoice.id), amount, date: '2026-11-30' });
    await sql`insert into jobs (kind, payload, account_id)
              values ('register_payment', ${JSON.stringify({ id: Number(invoice.id), amount, date: '2026-11-30', method: 'cash' })}::text::jsonb, ${accountId})`.execute(
      handle.db,
    );
  }
  const config = loadConfig({
    DATABASE_URL: url,
    MIRROR_SCHEMA: schema,
    INVOICING_API_URL: env.sandbox.url,
    JOB_POLL_INTERVAL_MS: '200',
  });
  const runner = new JobRunner({
    database: handle,
    account: { id: accountId, name: 'default' },
    client: env.client,
    config,
    backoff: { baseMs: 100, maxMs: 200 },
  });
  expect(await runner.runUntilEmpty()).toEqual({ ran: 3, failed: 0 });
}

/** Three invoices paid in the web application between two pulls: the next pull observes them. */
async function observePayments(): Promise<void> {
  const used = new Set(registered.map((p) => p.id));
  for (const invoice of open2026()
    .filter((i) => !used.has(Number(i.id)))
    .slice(0, 3)) {
    observed.push({ id: Number(invoice.id), open: centsOf(invoice.open) });
    env.sandbox.store.setInvoiceWire(Number(invoice.id), { open: '0.00', paiddate: '2026-12-20' });
  }
  await pullerFor(database, env)({ kind: 'backfill' });
}

/** A Belgian account beside it, from a sandbox of its own. */
async function pullBelgian(): Promise<void> {
  belgium = await startSandbox({
    seed: 11,
    records: 150,
    perEntity: { clients: 900 },
    sentInvoices: 2500,
    now: '2027-01-10T12:00:00Z',
  });
  const { rows } = await sql<{ id: number }>`
    insert into accounts (name, vat_country) values ('belgian', 'BE') returning id`.execute(db());
  belgianId = rows[0]!.id;
  const client = clientFor(belgium);
  try {
    const outcome = await runSync(
      testSession({ db: db(), client: client, accountId: belgianId, schema: database.current.schema }),
      { writeConcurrency: 2 },
      { kind: 'backfill' },
    );
    expect(outcome.status).toBe('succeeded');
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  referenceCreditNotes(env.sandbox.store.sentInvoices());
  await pullerFor(database, env)({ kind: 'backfill' });
  await registerPayments();
  await observePayments();
  await pullBelgian();
}, 900_000);

afterAll(async () => {
  await belgium?.close();
});

describe('export xaf of a generated year', { timeout: 300_000 }, () => {
  let xaf: Awaited<ReturnType<typeof xafExport>>;
  let file: ReturnType<typeof readXaf>;
  const upstream = () => env.sandbox.store.sentInvoices().filter((i) => String(i.sent).startsWith('2026-'));

  beforeAll(async () => {
    xaf = await xafExport(db(), database.current.accountId, yearPeriod('--year', '2026'), SELLER);
    const xml = buildXaf(xaf.input);
    expect(await validateXaf(xml)).toEqual([]);
    file = readXaf(xml);
  }, 300_000);

  it('is XSD-valid and balanced per transaction and in total, its sales the sandbox’s invoices of the year', () => {
    expect(upstream().length).toBeGreaterThanOrEqual(2000);
    expect(xaf.input.invoices.map((i) => i.id).sort()).toEqual(
      upstream()
        .map((i) => Number(i.id))
        .sort(),
    );
    expect(file.transactions).toHaveLength(xaf.input.invoices.length + xaf.input.payments.length);
    for (const tr of file.transactions)
      expect(
        tr.lines.reduce((sum, line) => sum + line.amount, 0),
        tr.nr,
      ).toBe(0);
    const debit = file.transactions.flatMap((tr) => tr.lines).reduce((s, l) => s + Math.max(l.amount, 0), 0);
    expect([file.totalDebit, file.totalCredit]).toEqual([debit, debit]);
    // The debtors' side of the sales journal is the year's invoice totals as the sandbox holds them.
    const debtors = file.transactions
      .filter((tr) => tr.journal === 'VK')
      .flatMap((tr) => tr.lines.filter((line) => line.account === '1300'))
      .reduce((sum, line) => sum + line.amount, 0);
    expect(debtors).toBe(upstream().reduce((sum, i) => sum + centsOf(i.totalintax), 0));
  });

  it('books the VAT of every rubric as the Dutch return of 2026 worked out from the sandbox’s records, to the cent', () => {
    const oracle = yearRubrics(oracleEntries(env.sandbox.store.sentInvoices(), 'NL'), '2026');
    // Invoices booked with VAT computed from their lines (no readable taxes): the return has no figure for them.
    const derived = new Set(
      xaf.notes.filter((n) => n.problem.includes('computed from its lines')).map((n) => String(n.id)),
    );
    const booked = new Map<string, { base: bigint; vat: bigint }>();
    for (const tr of file.transactions.filter((t) => t.journal === 'VK' && !derived.has(t.nr)))
      for (const line of tr.lines.filter((l) => l.vat)) {
        const rubric = rubricOfCode(line.vat!.id);
        const sum = booked.get(rubric) ?? { base: 0n, vat: 0n };
        sum.base -= BigInt(line.amount);
        sum.vat -= BigInt(line.vat!.amount);
        booked.set(rubric, sum);
      }
    for (const rubric of ['1a', '1b', '1c', '1e', '3a', '3b', 'unclassified'])
      expect({ rubric, ...(booked.get(rubric) ?? { base: 0n, vat: 0n }) }).toEqual({
        rubric,
        ...(oracle.get(rubric) ?? { base: 0n, vat: 0n }),
      });
    for (const rubric of ['1a', '1b', '1e', '3a', '3b']) expect(booked.get(rubric)?.base, rubric).not.toBe(0n);
    // 5a, the VAT due of 1a to 1e, and what the auditfile owes the tax office (1500) beside it.
    const fiveA = oracle.get('5a')!.vat;
    expect(['1a', '1b', '1c', '1e'].reduce((sum, r) => sum + (booked.get(r)?.vat ?? 0n), 0n)).toBe(fiveA);
    const payable = file.transactions
      .filter((t) => t.journal === 'VK')
      .flatMap((t) => t.lines.filter((l) => l.account === '1500'))
      .reduce((sum, l) => sum - BigInt(l.amount), 0n);
    const unclassified = file.transactions
      .filter((t) => t.journal === 'VK')
      .flatMap((t) => t.lines.filter((l) => l.vat?.id.startsWith('U')))
      .reduce((sum, l) => sum - BigInt(l.vat!.amount), 0n);
    expect(payable).toBe(fiveA + unclassified);
    // Every invoice that vat_problems would list with an amount is named.
    const named = new Set(xaf.problems.map((p) => p.id));
    for (const entry of oracleEntries(upstream(), 'NL'))
      if (entry.problem && (entry.base !== 0 || entry.vat !== 0))
        expect(named.has(entry.invoice_id as number)).toBe(true);
  });

  it('books the payments the sandbox says were made, registered and observed ones with their dates', () => {
    const bank = file.transactions.filter((t) => t.journal === 'BNK');
    expect(bank.length).toBe(xaf.input.payments.length);
    expect(bank.length).toBeGreaterThan(100);
    const paymentsOf = (id: number) => xaf.input.payments.filter((p) => p.invoiceId === id);
    for (const p of registered)
      expect(paymentsOf(p.id)).toContainEqual(
        expect.objectContaining({ source: 'registered', date: p.date, amount: p.amount * 100, method: 'cash' }),
      );
    for (const p of observed)
      expect(paymentsOf(p.id)).toContainEqual(
        expect.objectContaining({ source: 'observed', date: '2026-12-20', amount: p.open }),
      );
    const cash = bank.filter((t) => t.desc.includes('(cash)'));
    expect(cash).toHaveLength(registered.length);
  });

  it('has, over all years, per invoice payments adding up to what the sandbox says was paid', async () => {
    const { payments } = await readPayments(db(), database.current.accountId, '1900-01-01', '2999-12-31');
    const paid = new Map<number, number>();
    for (const p of payments) paid.set(p.invoiceId, (paid.get(p.invoiceId) ?? 0) + p.amount);
    for (const invoice of env.sandbox.store.sentInvoices()) {
      if (invoice.sent === '' || invoice.uncollectible !== '') continue;
      const expected = centsOf(invoice.totalintax) - centsOf(invoice.open);
      expect([invoice.id, paid.get(Number(invoice.id)) ?? 0]).toEqual([invoice.id, expected]);
    }
  });

  it('books revenue on the ledger of the invoice’s category where the service gives one', () => {
    // The sandbox's own categories (GET /categories of its account 1), generated from the account's seed.
    const categories = new Map(generateCategories(env.sandbox.account(1).seed).map((c) => [String(c.id), c]));
    const withLedger = upstream().filter((i) => {
      const ledger = categories.get(String(i.category))?.ledger;
      return ledger !== undefined && ledger !== false;
    });
    expect(withLedger.length).toBeGreaterThan(20);
    const byNr = new Map(file.transactions.filter((t) => t.journal === 'VK').map((t) => [t.nr, t]));
    for (const invoice of withLedger) {
      const category = categories.get(String(invoice.category))!;
      const revenue = byNr.get(String(invoice.id))!.lines.filter((line) => line.vat);
      for (const line of revenue) expect([invoice.id, line.account]).toEqual([invoice.id, String(category.ledger)]);
      expect(file.ledger).toContainEqual({ id: String(category.ledger), name: category.name });
    }
    // An account of the chart has one name: the revenue codes take numbers no category's ledger has.
    expect(new Set(file.ledger.map((a) => a.id)).size).toBe(file.ledger.length);
  });
});

type Document = UblExport['documents'][number] & { belgian: boolean };

/** Up to `size` documents, taken in turn from each group (category of a line, or credit note; per account). */
function sampleOf(documents: readonly Document[], size: number): { sample: Document[]; groups: Map<string, number> } {
  const groups = new Map<string, Document[]>();
  for (const document of documents) {
    const keys =
      document.kind === 'CreditNote' ? ['credit note'] : [...new Set(document.invoice.lines.map((l) => l.category))];
    for (const key of keys) {
      const group = `${document.belgian ? 'BE' : 'NL'} ${key}`;
      groups.set(group, [...(groups.get(group) ?? []), document]);
    }
  }
  const sample = new Set<Document>();
  const counts = new Map<string, number>();
  const longest = Math.max(...[...groups.values()].map((list) => list.length));
  for (let round = 0; sample.size < size && round < longest; round++)
    for (const [group, list] of groups) {
      const document = list[round];
      if (!document || sample.size >= size || sample.has(document)) continue;
      sample.add(document);
      counts.set(group, (counts.get(group) ?? 0) + 1);
    }
  return { sample: [...sample], groups: counts };
}

describe('export ubl of the generated invoices', { timeout: 1_200_000 }, () => {
  const all = { label: 'all', from: '2000-01-01', to: '2099-12-31' };
  let dutch: UblExport;
  let belgian: UblExport;

  beforeAll(async () => {
    dutch = await ublExport(db(), database.current.accountId, all, SELLER);
    belgian = await ublExport(db(), belgianId, all, BELGIAN_SELLER);
  }, 300_000);

  it('gives each line and VAT subtotal the category of the classification, and leaves nothing out silently', () => {
    for (const [ubl, sandbox, country] of [
      [dutch, env.sandbox, 'NL'],
      [belgian, belgium, 'BE'],
    ] as const) {
      const invoices = sandbox.store.sentInvoices().filter((i) => i.sent !== '');
      expect(ubl.documents.length + ubl.problems.length).toBe(invoices.length);
      for (const problem of ubl.problems) expect(problem.problem).not.toBe('');
      const entries = oracleEntries(invoices, country);
      const category = new Map(entries.map((e) => [`${e.invoice_id}|${Number(e.rate)}`, e.peppol_category]));
      for (const { invoice } of ubl.documents)
        for (const tax of invoice.taxes) expect(category.get(`${invoice.id}|${Number(tax.rate)}`)).toBe(tax.category);
      // An invoice with an entry the return cannot classify is left out, named by a kind vat_problems has for it.
      const left = new Map(ubl.problems.map((p) => [p.id, p.problem]));
      const kinds = new Map<unknown, string[]>();
      for (const e of entries)
        if (e.problem) kinds.set(e.invoice_id, [...(kinds.get(e.invoice_id) ?? []), String(e.problem)]);
      for (const entry of entries)
        if (entry.problem && (entry.base !== 0 || entry.vat !== 0)) {
          const named = left.get(entry.invoice_id as number) ?? '';
          expect([entry.invoice_id, kinds.get(entry.invoice_id)!.some((kind) => named.includes(kind))]).toEqual([
            entry.invoice_id,
            true,
          ]);
        }
    }
  });

  it('names the invoice a credit note corrects where its reference says it, and leaves out the Dutch ones that do not', () => {
    const credits = dutch.documents.filter((d) => d.kind === 'CreditNote');
    expect(credits.length).toBeGreaterThan(10);
    for (const { invoice, xml } of credits) {
      expect(invoice.correctsInvoice).toBe(referenced.get(invoice.id));
      expect(xml).toContain(`<cbc:ID>${invoice.correctsInvoice}</cbc:ID>`);
    }
    const unreferenced = env.sandbox.store
      .sentInvoices()
      .filter((i) => Number(i.totalintax) < 0 && i.sent !== '' && !referenced.has(Number(i.id)));
    const left = new Map(dutch.problems.map((p) => [p.id, p.problem]));
    for (const invoice of unreferenced) expect(left.get(Number(invoice.id))).toBeDefined();
    expect(unreferenced.filter((i) => left.get(Number(i.id))?.includes('NL-R-001')).length).toBeGreaterThan(5);
  });

  it(`passes the UBL 2.1 XSD and the Peppol rules (and the Belgian ones) with no fatal finding: ${SAMPLE} documents across every category`, async () => {
    const documents: Document[] = [
      ...dutch.documents.map((d) => ({ ...d, belgian: false })),
      ...belgian.documents.map((d) => ({ ...d, belgian: true })),
    ];
    const { sample, groups } = sampleOf(documents, SAMPLE);
    expect(sample).toHaveLength(SAMPLE);
    for (const group of ['S', 'Z', 'AE', 'K', 'G', 'credit note'].flatMap((g) => [`NL ${g}`, `BE ${g}`]))
      expect([group, (groups.get(group) ?? 0) >= 5, Object.fromEntries(groups)]).toEqual([
        group,
        true,
        Object.fromEntries(groups),
      ]);
    // The XSD in batches of 100 documents per pass.
    for (let i = 0; i < sample.length; i += 100)
      expect(
        await validateUbl(sample.slice(i, i + 100).map(({ invoice, xml }) => ({ name: `${invoice.number}.xml`, xml }))),
      ).toEqual([]);
    for (const { invoice, xml, belgian: isBelgian } of sample) {
      const findings = isBelgian ? await checkBelgian(xml) : await checkPeppol(xml);
      expect({ invoice: invoice.number, fatal: fatal(findings) }).toEqual({ invoice: invoice.number, fatal: [] });
    }
  });
});
