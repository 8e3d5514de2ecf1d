/** Maps `/api/v1/...` requests to reads (lists, single records, search, country list) and to the write actions. */
import * as act from './actions.js';
import { json, text, type Reply } from './actions.js';
import { COUNTRY_LANGS, countryListJson, type CountryLang } from './countries.js';
import { FIELDS, type SandboxEntity } from './fields.js';
import {
  INVOICE_FIELDS,
  invoicePdf,
  matchesQuery,
  readInvoiceQuery,
  registerPayment,
  sendReminder,
} from './invoices.js';
import type { Account } from './store.js';
import type { Table } from './table.js';
import { bad, HttpError, type Rec } from './wire.js';

export interface ApiRequest {
  method: string;
  /** Decoded path segments after /api/v1. */
  segments: string[];
  query: URLSearchParams;
  body: unknown;
  ip: string;
}

export interface RouteContext {
  account: Account;
  defaultPageSize: number;
  /** The most records one list answer holds, whatever `count` asks. */
  maxPageSize: number;
  /** Lists that ignore `count` and `start`: all (true) or the named ones (`clients`, `countrylist`, …). */
  ignorePaging: boolean | string[];
  /** Waits the simulated send time; rejects when the sandbox closes. */
  sendDelay(invoices: number): Promise<void>;
}

/** Path name → entity, and the one key a single GET wraps the record in. */
const RESOURCES: Record<string, { entity: SandboxEntity; wrap: string }> = {
  clients: { entity: 'clients', wrap: 'client' },
  products: { entity: 'products', wrap: 'product' },
  quotations: { entity: 'quotations', wrap: 'quotation' },
  invoices_saved: { entity: 'saved_invoices', wrap: 'invoice' },
  saved_invoices: { entity: 'saved_invoices', wrap: 'invoice' },
  invoices_repeated: { entity: 'repeating_invoices', wrap: 'invoice' },
};

const SEARCH_AREAS: Record<string, SandboxEntity | 'invoices'> = {
  invoices: 'invoices',
  invoices_saved: 'saved_invoices',
  invoices_repeated: 'repeating_invoices',
  clients: 'clients',
  products: 'products',
};

/** Fields compared as numbers in search (a decimal number uses a dot). */
const NUMERIC_FIELDS = new Set([
  'totalintax',
  'totaldiscount',
  'alreadypaid',
  'price',
  'priceintax',
  'discount',
  'stock',
  'taxes',
  'tax',
  'open',
]);

const methodNotAllowed = (): HttpError => new HttpError(405, 'Method not allowed');

/** Where a list page starts and how many records it holds (count -1: all), as the service reads it. */
function paging(
  ctx: RouteContext,
  list: string,
  query: URLSearchParams,
  defaultCount = ctx.defaultPageSize,
): { start: number; count: number } {
  if (ctx.ignorePaging === true || (Array.isArray(ctx.ignorePaging) && ctx.ignorePaging.includes(list)))
    return { start: 0, count: -1 };
  const read = (name: string, fallback: number, min: number): number => {
    const v = query.get(name);
    if (v === null || v === '') return fallback;
    if (!/^-?\d+$/.test(v.trim()) || Number(v) < min)
      throw bad(`${name}: must be an integer${min === -1 ? ' (-1 for all)' : ' of 0 or more'}`);
    return Number(v);
  };
  const count = read('count', defaultCount, -1);
  // A capped service answers at most maxPageSize records, also to `count=-1`.
  const capped = Number.isFinite(ctx.maxPageSize) && (count < 0 || count > ctx.maxPageSize) ? ctx.maxPageSize : count;
  return { start: read('start', 0, 0), count: capped };
}

function list(ctx: RouteContext, name: string, table: Table, query: URLSearchParams): Reply {
  const { start, count } = paging(ctx, name, query);
  return json(table.page(start, count));
}

function numericId(segment: string): number | undefined {
  return /^\d+$/.test(segment) && Number(segment) > 0 ? Number(segment) : undefined;
}

export async function route(ctx: RouteContext, req: ApiRequest): Promise<Reply> {
  const { account } = ctx;
  const [head = '', ...rest] = req.segments;
  const m = req.method;

  if (head === 'countrylist') {
    if (m !== 'GET') throw methodNotAllowed();
    if (rest.length > 1) throw new HttpError(404, 'Not found');
    const lang = (rest[0] ?? 'nl').toLowerCase();
    if (!(COUNTRY_LANGS as readonly string[]).includes(lang))
      throw new HttpError(404, `Unknown language "${rest[0]}" (nl, en, de, fr, es)`);
    // Without a count the country list comes whole (it is short); with one it pages like the others.
    const { start, count } = paging(ctx, head, req.query, -1);
    const all = countryListJson(lang as CountryLang);
    if (start === 0 && count < 0) return json(all);
    const entries = JSON.parse(all) as unknown[];
    return json(JSON.stringify(entries.slice(start, count < 0 ? undefined : start + count)));
  }

  if (head === 'taxes' || head === 'categories') {
    if (m !== 'GET') throw methodNotAllowed();
    if (rest.length > 0) throw new HttpError(404, 'Not found');
    const { start, count } = paging(ctx, head, req.query);
    const all = head === 'taxes' ? account.taxRates : account.categories;
    return json(JSON.stringify(all.slice(start, count < 0 ? undefined : start + count)));
  }

  if (head === 'search') {
    if (m !== 'GET') throw methodNotAllowed();
    if (rest.length < 3) throw bad('search needs /search/{area}/{field}/{query}');
    return search(ctx, rest[0]!, rest[1]!, rest.slice(2).join('/'), req.query);
  }

  // The search form without the `search` segment: /{area}/{field}/{query}.
  if (rest.length >= 2 && m === 'GET' && SEARCH_AREAS[head])
    return search(ctx, head, rest[0]!, rest.slice(1).join('/'), req.query);

  if (SENT_INVOICE_PATHS.has(head)) return sentInvoices(ctx, head, rest, req);

  const resource = RESOURCES[head];
  if (!resource || rest.length > 1) throw new HttpError(404, 'Not found');
  const { entity, wrap } = resource;
  const table = account.tables[entity];
  const idText = rest[0];

  if (idText === undefined) {
    if (m === 'GET') return list(ctx, head, table, req.query);
    if (m === 'POST') {
      switch (entity) {
        case 'clients':
          return act.createClient(account, req.body);
        case 'products':
          return act.createProduct(account, req.body);
        case 'quotations':
          return act.createQuotation(account, req.body);
        case 'saved_invoices':
          return sendSaved(ctx, req.body);
        default:
          throw methodNotAllowed();
      }
    }
    throw methodNotAllowed();
  }

  // Saved invoices are addressed by id or invoice number; the others by numeric id.
  const id = entity === 'saved_invoices' ? account.findSaved(idText) : numericId(idText);
  if (m === 'GET') {
    // Quirk of the real service: an odd (non-numeric or zero) id answers 200 with the whole list.
    if (id === undefined && entity !== 'saved_invoices' && numericId(idText) === undefined)
      return list(ctx, head, table, req.query);
    const body = id === undefined ? undefined : table.bytes(id);
    if (body === undefined) throw new HttpError(404, `${wrap} ${idText} not found`);
    return json(Buffer.concat([Buffer.from(`{"${wrap}":`), body, Buffer.from('}')]));
  }
  if (id === undefined) throw new HttpError(404, `${wrap} ${idText} not found`);
  if (m === 'DELETE') {
    if (entity === 'clients') return act.deleteClient(account, id);
    return act.deleteRecord(account, entity, id);
  }
  if (m === 'PUT') {
    switch (entity) {
      case 'clients':
        return act.updateClient(account, id, req.body);
      case 'products':
        return act.updateProduct(account, id, req.body);
      case 'quotations':
        return act.updateQuotation(account, id, req.body, req.ip);
      default:
        throw methodNotAllowed();
    }
  }
  throw methodNotAllowed();
}

const SENT_INVOICE_PATHS = new Set(['invoices', 'invoices_payment', 'invoices_reminder', 'invoices_pdf']);

/**
 * Sent invoices: `GET /invoices` (filters `filter`, `since`, `until`, `client`, paged), `POST
 * /invoices` (action send, save or repeat), `GET` and
 * `DELETE /invoices/{id or invoicenr}`, `POST /invoices_payment/{id or invoicenr}`,
 * `POST /invoices_reminder` and `GET /invoices_pdf/{id or invoicenr}`.
 */
function sentInvoices(ctx: RouteContext, head: string, rest: string[], req: ApiRequest): Reply {
  const { account } = ctx;
  const table = account.invoices;
  const today = account.today();
  if (rest.length > 1) throw new HttpError(404, 'Not found');
  const find = (idOrNumber: string | undefined): number => {
    const id = idOrNumber === undefined ? undefined : account.findInvoice(idOrNumber);
    if (id === undefined) throw new HttpError(404, `invoice ${idOrNumber ?? ''} not found`);
    return id;
  };
  if (head === 'invoices_reminder') {
    if (req.method !== 'POST') throw methodNotAllowed();
    const body = (req.body ?? {}) as Rec;
    const id = find(body.invoicenr === undefined ? undefined : String(body.invoicenr));
    sendReminder(table.get(id)!, today);
    table.touch(id);
    return text(200, 'OK');
  }
  if (head === 'invoices_payment') {
    if (req.method !== 'POST') throw methodNotAllowed();
    const id = find(rest[0]);
    const body = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('expected a payment object');
    registerPayment(table.get(id)!, body as Rec, today);
    account.paymentLog.push({ invoiceId: id, body: body as Rec, at: new Date().toISOString() });
    table.touch(id);
    return text(201, 'OK');
  }
  if (head === 'invoices_pdf') {
    if (req.method !== 'GET') throw methodNotAllowed();
    return { status: 200, body: invoicePdf(table.get(find(rest[0]))!), type: 'pdf' };
  }
  if (rest.length === 0) {
    if (req.method === 'POST') return act.createInvoice(account, req.body);
    if (req.method !== 'GET') throw methodNotAllowed();
    const query = readInvoiceQuery(req.query);
    if (Object.keys(query).length === 0) return list(ctx, head, table, req.query);
    const hits = table.idList().filter((id) => matchesQuery(table.get(id)!, query, today));
    const { start, count } = paging(ctx, head, req.query);
    return json(table.join(count < 0 ? hits.slice(start) : hits.slice(start, start + count)));
  }
  const id = find(rest[0]);
  if (req.method === 'GET')
    return json(Buffer.concat([Buffer.from('{"invoice":'), table.bytes(id)!, Buffer.from('}')]));
  if (req.method === 'DELETE') {
    table.remove(id);
    return text(200, 'OK');
  }
  throw methodNotAllowed();
}

async function sendSaved(ctx: RouteContext, body: unknown): Promise<Reply> {
  const { ids, deleteAfter } = act.readSendBody(ctx.account, body);
  // Sent one after the other, each taking its time; one deleted meanwhile is skipped. A caller that
  // goes away does not stop it: like the service, the sandbox finishes what it was asked, and
  // (service-notes.md) removes the saved invoices only when the whole call is done, so a saved
  // invoice still there while a call runs proves nothing.
  const sent: number[] = [];
  for (const id of ids) {
    await ctx.sendDelay(1);
    if (ctx.account.sendSaved(id, false)) sent.push(id);
  }
  if (deleteAfter) for (const id of sent) ctx.account.tables.saved_invoices.remove(id);
  return text(200, 'OK');
}

function matches(value: unknown, needle: string, numeric: number | undefined): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'object') return Object.values(value as Rec).some((v) => matches(v, needle, undefined));
  if (numeric !== undefined && value !== '' && Number(value) === numeric) return true;
  return String(value).toLowerCase().includes(needle);
}

function search(ctx: RouteContext, areaName: string, field: string, query: string, qs: URLSearchParams): Reply {
  const area = SEARCH_AREAS[areaName.toLowerCase()];
  if (!area) throw bad(`Unknown search area "${areaName}" (${Object.keys(SEARCH_AREAS).join(', ')})`);
  const table = area === 'invoices' ? ctx.account.invoices : ctx.account.tables[area];
  const known = new Set(area === 'invoices' ? INVOICE_FIELDS : Object.keys(FIELDS[area]));
  const f = field.toLowerCase();
  if (f !== 'all' && !known.has(f)) throw bad(`Unknown field "${field}" for area ${areaName}`);
  if (NUMERIC_FIELDS.has(f) && /^-?\d+,\d+$/.test(query)) throw bad('Use a dot as decimal separator');
  const needle = query.toLowerCase();
  const numeric = NUMERIC_FIELDS.has(f) && /^-?\d+(\.\d+)?$/.test(query) ? Number(query) : undefined;
  const hits: number[] = [];
  for (const id of table.idList()) {
    const rec = table.get(id)!;
    const ok =
      f === 'all'
        ? Object.entries(rec).some(([k, v]) =>
            k === 'lines'
              ? matches(v, needle, undefined)
              : matches(v, needle, NUMERIC_FIELDS.has(k) ? (numeric ?? Number.NaN) : undefined),
          )
        : NUMERIC_FIELDS.has(f) && numeric !== undefined
          ? Number(rec[f]) === numeric
          : matches(rec[f], needle, undefined);
    if (ok) hits.push(id);
  }
  const { start, count } = paging(ctx, 'search', qs);
  const page = count < 0 ? hits.slice(start) : hits.slice(start, start + count);
  return json(table.join(page));
}
