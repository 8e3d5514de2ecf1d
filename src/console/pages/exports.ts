/**
 * The exports of one account, to download: the XAF 4.0 auditfile of each year, and the Peppol UBL
 * documents of each quarter (a zip, or a list of every invoice with its own link or the reason it
 * is left out). The same exports as `invoice-mirror export xaf|ubl` (src/exports/run.ts), read
 * from the mirror only; the seller is the account's file in EXPORT_SELLERS (`NAME.json`, what
 * `export --seller` takes), and a page that cannot have one says why and what to do.
 */
import { strToU8, zipSync } from 'fflate';
import type { Context } from 'hono';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/index.js';
import { errorMessage } from '../../errors.js';
import type { Seller } from '../../exports/model.js';
import { parsePeriod, type Period, yearPeriod } from '../../exports/period.js';
import { accountVatCountry, sellerCountryProblem, type UblExport, ublExport, xafExport } from '../../exports/run.js';
import { accountSeller, sellerFileOf } from '../../exports/seller.js';
import { ublSellerProblem } from '../../exports/ubl.js';
import { buildXaf } from '../../exports/xaf.js';
import { chooseAccount, link, type ConsoleApp, type ConsoleEnv, type Viewing } from '../accounts.js';
import { html, MAX_INTEGER_ID, notFoundPage, page, pathId, type Html } from '../layout.js';

type Account = NonNullable<Viewing['account']>;

/** The account's seller, or why there is none (one line). */
async function sellerOf(
  db: Kysely<Database>,
  account: Account,
  sellers: string | undefined,
): Promise<Seller | { problem: string }> {
  if (!sellers)
    return {
      problem: `set EXPORT_SELLERS to a directory holding ${account.name}.json, the administration's own details as \`export --seller\` takes them`,
    };
  try {
    const seller = accountSeller(undefined, sellers, account.name);
    const problem = sellerCountryProblem(seller, await accountVatCountry(db, account.id), account.name);
    return problem ? { problem } : seller;
  } catch (error) {
    return { problem: errorMessage(error) };
  }
}

/** Per quarter with sent invoices, how many, newest first. */
async function quartersOf(db: Kysely<Database>, accountId: number) {
  const { rows } = await sql<{ period: string; invoices: number }>`
    select to_char(sent, 'YYYY-"Q"Q') as period, count(*)::int as invoices from invoices
     where account_id = ${accountId} and deleted_at is null and sent is not null
     group by 1 order by 1 desc`.execute(db);
  return rows;
}

function yearsOf(quarters: readonly { period: string; invoices: number }[]) {
  const years = new Map<string, number>();
  for (const { period, invoices } of quarters)
    years.set(period.slice(0, 4), (years.get(period.slice(0, 4)) ?? 0) + invoices);
  return [...years];
}

async function exportsPage(db: Kysely<Database>, view: Viewing, sellers: string | undefined): Promise<Html> {
  const section = { view, section: '/exports' };
  if (!view.account) return page('Exports', chooseAccount(view, 'an export', '/exports'), section);
  const seller = await sellerOf(db, view.account, sellers);
  const quarters = await quartersOf(db, view.account.id);
  const file = sellers ? sellerFileOf(sellers, view.account.name) : undefined;
  const sellerLine =
    'problem' in seller
      ? html`<p class="error" role="alert">No export without the seller: ${seller.problem}</p>`
      : html`<p>Seller: ${seller.name} (${seller.vatNumber}), from <code>${file}</code>.</p>`;
  const ready = !('problem' in seller);
  const download = (href: string, label: string) => (ready ? html`<a href="${link(view, href)}">${label}</a>` : '');
  return page(
    'Exports',
    html`<p>The account's books as files for other tools, read from the mirror only (no request to the service):
        the XML Auditfile Financieel 4.0 of a year, and Peppol BIS Billing 3.0 UBL invoices and credit notes of a quarter.
        The same files as <code>invoice-mirror export xaf</code> and <code>export ubl</code>.</p>
      ${sellerLine}
      ${quarters.length === 0 ? html`<p class="muted">No sent invoices yet, so nothing to export.</p>` : ''}
      <table class="exports"><thead><tr><th>year</th><th class="num">invoices</th><th>auditfile</th></tr></thead>
      <tbody>${yearsOf(quarters).map(
        ([year, invoices]) => html`<tr data-year="${year}"><td>${year}</td><td class="num">${invoices}</td>
          <td>${download(`/exports/xaf?year=${year}`, `XAF ${year}`)}</td></tr>`,
      )}</tbody></table>
      <table class="exports"><thead><tr><th>quarter</th><th class="num">invoices</th><th>UBL</th></tr></thead>
      <tbody>${quarters.map(
        ({ period, invoices }) => html`<tr data-period="${period}"><td>${period}</td><td class="num">${invoices}</td>
          <td>${download(`/exports/ubl.zip?period=${period}`, 'zip')}
            ${download(`/exports/ubl?period=${period}`, 'each invoice')}</td></tr>`,
      )}</tbody></table>`,
    section,
  );
}

/** The period of `?year=` or `?period=`, or a one-line reason. */
function periodOf(c: Context<ConsoleEnv>, option: 'year' | 'period'): Period | { problem: string } {
  const value = c.req.query(option) ?? '';
  try {
    return option === 'year' ? yearPeriod('year', value) : parsePeriod('period', value);
  } catch (error) {
    return { problem: errorMessage(error) };
  }
}

/** What a download answers when it cannot be made: the page with the reason, 400. */
function refused(c: Context<ConsoleEnv>, line: string) {
  return c.html(page('Exports', html`<p class="error" role="alert">${line}</p>`, { view: c.get('view') }), 400);
}

/** The account, seller and period of a download, or the answer that refuses it. */
async function downloadInputs(
  c: Context<ConsoleEnv>,
  db: Kysely<Database>,
  sellers: string | undefined,
  option: 'year' | 'period',
) {
  const { account } = c.get('view');
  if (!account) return { refusal: refused(c, 'Choose the account: an export is for one account (?account=NAME).') };
  const seller = await sellerOf(db, account, sellers);
  if ('problem' in seller) return { refusal: refused(c, seller.problem) };
  const period = periodOf(c, option);
  if ('problem' in period) return { refusal: refused(c, period.problem) };
  return { account, seller, period };
}

const fileName = (text: string) => text.replaceAll(/[^\w.-]/g, '_');

function leftOutText(ubl: UblExport): string {
  return ubl.problems.map((p) => `invoice ${p.number} (id ${p.id}) left out: ${p.problem}\n`).join('');
}

function ublListPage(view: Viewing, period: Period, ubl: UblExport): Html {
  const documents = ubl.documents.map(
    ({ invoice, kind }) => html`<tr><td><a href="${link(view, `/exports/ubl/${invoice.id}`)}">${invoice.number}</a></td>
      <td>${invoice.issueDate}</td><td>${kind === 'Invoice' ? 'invoice' : 'credit note'}</td><td></td></tr>`,
  );
  const problems = ubl.problems.map(
    (p) => html`<tr class="muted"><td><a href="${link(view, `/records/invoices/${p.id}`)}">${p.number}</a></td>
      <td></td><td>left out</td><td>${p.problem}</td></tr>`,
  );
  return page(
    `UBL ${period.label}`,
    html`<p>${ubl.documents.length} documents, ${ubl.problems.length} invoices left out (with the reason).
        <a href="${link(view, `/exports/ubl.zip?period=${period.label}`)}">All as a zip</a> ·
        <a href="${link(view, '/exports')}">Exports</a></p>
      <table><thead><tr><th>invoice</th><th>date</th><th>document</th><th>why left out</th></tr></thead>
      <tbody>${documents}${problems}</tbody></table>`,
    { view, section: '/exports' },
  );
}

/** Whether a sent invoice has this id (in the account given, else in any account). */
async function sentInvoiceExists(db: Kysely<Database>, id: number, accountId: number | undefined): Promise<boolean> {
  const found = await db
    .selectFrom('invoices')
    .select('id')
    .where('id', '=', id)
    .$if(accountId !== undefined, (query) => query.where('account_id', '=', accountId!))
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

const attachment = (name: string) => ({ 'content-disposition': `attachment; filename="${name}"` });

export function exportRoutes(app: ConsoleApp, db: Kysely<Database>, sellers: string | undefined): void {
  app.get('/exports', async (c) => c.html(await exportsPage(db, c.get('view'), sellers)));
  app.get('/exports/xaf', async (c) => {
    const inputs = await downloadInputs(c, db, sellers, 'year');
    if ('refusal' in inputs) return inputs.refusal;
    const xaf = await xafExport(db, inputs.account.id, inputs.period, inputs.seller);
    return c.body(buildXaf(xaf.input), 200, {
      'content-type': 'application/xml; charset=utf-8',
      ...attachment(`${fileName(inputs.account.name)}-${inputs.period.label}.xaf`),
    });
  });
  app.get('/exports/ubl', async (c) => {
    const inputs = await downloadInputs(c, db, sellers, 'period');
    if ('refusal' in inputs) return inputs.refusal;
    const problem = ublSellerProblem(inputs.seller);
    if (problem) return refused(c, `The seller file: ${problem}`);
    return c.html(
      ublListPage(c.get('view'), inputs.period, await ublExport(db, inputs.account.id, inputs.period, inputs.seller)),
    );
  });
  app.get('/exports/ubl.zip', async (c) => {
    const inputs = await downloadInputs(c, db, sellers, 'period');
    if ('refusal' in inputs) return inputs.refusal;
    const problem = ublSellerProblem(inputs.seller);
    if (problem) return refused(c, `The seller file: ${problem}`);
    const ubl = await ublExport(db, inputs.account.id, inputs.period, inputs.seller);
    const files: Record<string, Uint8Array> = {};
    for (const { invoice, xml } of ubl.documents) files[`${fileName(invoice.number)}.xml`] = strToU8(xml);
    if (ubl.problems.length) files['left-out.txt'] = strToU8(leftOutText(ubl));
    const zip = zipSync(files, { level: 6 });
    return c.body(zip as Uint8Array<ArrayBuffer>, 200, {
      'content-type': 'application/zip',
      ...attachment(`${fileName(inputs.account.name)}-${inputs.period.label}-ubl.zip`),
    });
  });
  app.get('/exports/ubl/:id{[0-9]+}', async (c) => {
    const view = c.get('view');
    const { account } = view;
    // An id that names no sent invoice (of the chosen account, or of any account shown) is a 404,
    // before any question about the account or the seller.
    const id = pathId(c.req.param('id'), MAX_INTEGER_ID);
    if (id === null || !(await sentInvoiceExists(db, id, account?.id)))
      return c.html(
        notFoundPage(`No sent invoice ${c.req.param('id')}${account ? ` in ${account.name}` : ''}.`, view),
        404,
      );
    if (!account) return refused(c, 'Choose the account: an export is for one account (?account=NAME).');
    const seller = await sellerOf(db, account, sellers);
    if ('problem' in seller) return refused(c, seller.problem);
    const ubl = await ublExport(
      db,
      account.id,
      { label: `invoice ${id}`, from: '1900-01-01', to: '2999-12-31', ids: [id] },
      seller,
    );
    const [document] = ubl.documents;
    if (!document)
      return refused(
        c,
        ubl.problems[0]
          ? `Invoice ${ubl.problems[0].number} is left out: ${ubl.problems[0].problem}`
          : `Account ${account.name} has no sent invoice with id ${id}.`,
      );
    return c.body(document.xml, 200, {
      'content-type': 'application/xml; charset=utf-8',
      ...attachment(`${fileName(document.invoice.number)}.xml`),
    });
  });
}
