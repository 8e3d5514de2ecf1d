/** The write operations of spec section 4, with the state rules of section 3. */
import { approvalToWire, CUSTOMSTATUSES, keyOf, readEnum, SENDMETHODS, type SandboxEntity } from './fields.js';
import { priceInTax, recompute } from './derive.js';
import { mixSeed } from './prng.js';
import type { Account } from './store.js';
import { bad, HttpError, readBool, readInt, readString, type Rec } from './wire.js';
import { registerPayment } from './invoices.js';

export interface Reply {
  status: number;
  body: string | Buffer;
  type: 'json' | 'text' | 'html' | 'pdf';
}

export const text = (status: number, body: string): Reply => ({ status, body, type: 'text' });
export const json = (body: string | Buffer, status = 200): Reply => ({ status, body, type: 'json' });
const OK = (): Reply => text(200, 'OK');
const created = (id: number): Reply => text(201, String(id));
const notFound = (what: string, id: string | number): HttpError => new HttpError(404, `${what} ${id} not found`);

const blank3 = (): Rec => ({ line1: '', line2: '', line3: '' });

function requireObject(body: unknown): Rec {
  if (
    body === undefined ||
    body === null ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    Object.keys(body).length === 0
  )
    throw bad('The request body must be an object with the fields to set');
  return body as Rec;
}

/** Validate on a copy, so a rejected request changes nothing. */
function edit(account: Account, entity: SandboxEntity, id: number, body: Rec, strict = true): Rec {
  const rec = account.tables[entity].get(id);
  if (!rec) throw notFound(entity === 'clients' ? 'Client' : 'Record', id);
  const copy = structuredClone(rec);
  account.change(entity, copy, body, strict);
  return copy;
}

// ---- clients -------------------------------------------------------------------------------

export function createClient(account: Account, raw: unknown): Reply {
  const body = requireObject(raw);
  const table = account.tables.clients;
  let id = table.nextId();
  if (body.clientnr !== undefined && body.clientnr !== '') {
    id = readInt(body.clientnr, 'clientnr');
    if (id < 1) throw bad('clientnr: must be a positive integer');
    if (table.has(id)) throw bad(`clientnr: client ${id} already exists`);
  }
  const rec: Rec = {
    clientnr: String(id),
    contact: '',
    showcontact: 'true',
    company: '',
    address: '',
    address_addon: '',
    zipcode: '',
    city: '',
    country: '146',
    phone: '',
    mobile: '',
    email: '',
    addon: '',
    bankcode: '',
    biccode: '',
    taxnumber: '',
    tax_shifted: 'false',
    lastinvoice: '',
    sendmethod: 'email',
    paymentmethod: 'bank',
    top: '30',
    stddiscount: '0',
    mailintro: '',
    reference: blank3(),
    notes: '',
    notes_on_invoice: 'false',
    active: 'true',
    default_doclang: '',
    default_email: '0',
    email_reminder: '',
    currency: 'EUR',
    mandate_id: '',
    mandate_date: '',
    collecttype: 'FRST',
    tax_type: 'extax',
    default_category: '0',
  };
  const { clientnr: _nr, ...fields } = body;
  account.change('clients', rec, fields, true);
  if (rec.company === '' && rec.contact === '') throw bad('company or contact is required');
  table.put(id, rec);
  return created(id);
}

export function updateClient(account: Account, id: number, raw: unknown): Reply {
  const { clientnr: _nr, ...body } = requireObject(raw);
  account.tables.clients.put(id, edit(account, 'clients', id, body));
  return OK();
}

export function deleteClient(account: Account, id: number): Reply {
  if (!account.tables.clients.has(id)) throw notFound('Client', id);
  if (account.clientHasDocuments(id))
    throw new HttpError(403, `Client ${id} has documents (invoices or quotations) and cannot be deleted`);
  account.tables.clients.remove(id);
  return OK();
}

// ---- products ------------------------------------------------------------------------------

export function createProduct(account: Account, raw: unknown): Reply {
  const body = requireObject(raw);
  const table = account.tables.products;
  const id = table.nextId();
  const rec: Rec = {
    id: String(id),
    code: '',
    name: '',
    price: '0',
    taxes: '21',
    priceintax: priceInTax(0, 21),
    notes: '',
    stock: false,
    stock_use: 'false',
  };
  const { id: _id, ...fields } = body;
  account.change('products', rec, fields, true);
  if (String(rec.name).trim() === '') throw bad('name is required');
  table.put(id, rec);
  return created(id);
}

export function updateProduct(account: Account, id: number, raw: unknown): Reply {
  const { id: _id, ...body } = requireObject(raw);
  account.tables.products.put(id, edit(account, 'products', id, body));
  return OK();
}

// ---- quotations ----------------------------------------------------------------------------

function readAction(value: unknown): 'send' | 'save' {
  if (value === undefined || value === '') throw bad('action is required (send or save)');
  return readEnum(value, ['send', 'save'], 'action') as 'send' | 'save';
}

function readSendmethod(value: unknown): string {
  if (value === undefined || value === '')
    throw bad('sendmethod is required when action is send (mail, email or printcenter)');
  return readEnum(value, SENDMETHODS, 'sendmethod');
}

function findQuotationBy(
  account: Account,
  field: 'savename' | 'quotationreference',
  value: unknown,
  except?: number,
): number | undefined {
  if (value === undefined || value === '') return undefined;
  const wanted = String(value);
  for (const r of account.tables.quotations.records())
    if (r[field] === wanted && Number(r.id) !== except) return Number(r.id);
  return undefined;
}

function signUrl(account: Account, id: number): string {
  return `https://www.factuursturen.nl/sign/${mixSeed(account.seed, id, 7).toString(16).padStart(8, '0')}${mixSeed(id, 77).toString(16).padStart(8, '0')}`;
}

export function createQuotation(account: Account, raw: unknown): Reply {
  const body = requireObject(raw);
  const action = readAction(body.action);
  if (body.clientnr === undefined || body.clientnr === '') throw bad('clientnr is required');
  const clientnr = readInt(body.clientnr, 'clientnr');
  if (!account.tables.clients.has(clientnr)) throw bad(`clientnr: client ${clientnr} does not exist`);
  const sendmethod = action === 'send' ? readSendmethod(body.sendmethod) : '';
  const table = account.tables.quotations;
  let id = table.nextId();
  const existing = findQuotationBy(account, 'savename', body.savename);
  if (existing !== undefined) {
    const overwrite = body.overwrite_if_exist !== undefined && readBool(body.overwrite_if_exist, 'overwrite_if_exist');
    if (!overwrite)
      throw bad(
        `savename: a quotation named "${String(body.savename)}" already exists (set overwrite_if_exist to overwrite it)`,
      );
    id = existing;
  }
  if (findQuotationBy(account, 'quotationreference', body.quotationreference, existing) !== undefined)
    throw bad(`quotationreference: "${String(body.quotationreference)}" is already used`);
  const today = account.today();
  const rec: Rec = {
    id: String(id),
    savename: '',
    quotationreference: `OF-${today.slice(0, 4)}-${String(id).padStart(5, '0')}`,
    reference: blank3(),
    lines: [],
    profile: '1',
    profile_name: 'Standaard',
    category: '0',
    category_name: '',
    discounttype: 'amount',
    discount: '0',
    paymentcondition: 'Betaling binnen %PAYMENT_PERIOD% dagen',
    quotationperiod: '30',
    showtotals: '1',
    date: today,
    datedue: '',
    notes: '',
    totalintax: '0',
    convert_prices_to_euro: '0',
    sent: action === 'send' ? 'true' : 'false',
    sendmethod,
    customstatus: '',
    approved: [],
    clientnr: '',
    contact: '',
    company: '',
    address: '',
    zipcode: '',
    city: '',
    country: '',
    phone: '',
    mobile: '',
    email: '',
    sign_url: signUrl(account, id),
  };
  const {
    action: _a,
    sendmethod: _s,
    overwrite_if_exist: _o,
    approved: _ap,
    customstatus: _cs,
    id: _id,
    ...fields
  } = body;
  account.change('quotations', rec, fields, true);
  table.put(id, rec);
  return created(id);
}

export function updateQuotation(account: Account, id: number, raw: unknown, ip: string): Reply {
  const body = requireObject(raw);
  const table = account.tables.quotations;
  const current = table.get(id);
  if (!current) throw notFound('Quotation', id);
  const { action: rawAction, sendmethod, approved, customstatus, overwrite_if_exist: _o, id: _id, ...fields } = body;
  if (findQuotationBy(account, 'savename', fields.savename, id) !== undefined)
    throw bad(`savename: "${String(fields.savename)}" is already used`);
  if (findQuotationBy(account, 'quotationreference', fields.quotationreference, id) !== undefined)
    throw bad(`quotationreference: "${String(fields.quotationreference)}" is already used`);
  const rec = edit(account, 'quotations', id, fields);
  let newId: number | undefined;
  if (rawAction !== undefined) {
    const action = readAction(rawAction);
    if (action === 'send') {
      if (rec.sent === 'true') throw bad(`Quotation ${id} has already been sent`);
      rec.sendmethod = readSendmethod(sendmethod);
      rec.sent = 'true';
      rec.date = account.today();
      recompute('quotations', rec);
      // A draft that is sent becomes a new quotation with a new id.
      newId = table.nextId();
      rec.id = String(newId);
      rec.sign_url = signUrl(account, newId);
    }
  }
  if (approved !== undefined) {
    if (rec.sent !== 'true') throw bad('Only sent quotations can be approved; a draft cannot be approved');
    if (typeof approved === 'object' && approved !== null && !Array.isArray(approved))
      rec.approved = approvalToWire(approved as Rec, ip, account.today());
    else if (readBool(approved, 'approved') === false) rec.approved = [];
    else throw bad('approved: must be an object with name, date and comments, or false to remove the approval');
  }
  if (customstatus !== undefined) {
    const status = readEnum(customstatus, CUSTOMSTATUSES, 'customstatus');
    if (rec.sent !== 'true') throw bad('Only sent quotations can have a custom status');
    rec.customstatus = status === 'clear' ? '' : status;
  }
  if (newId !== undefined) {
    table.remove(id);
    table.put(newId, rec);
    return text(200, String(newId));
  }
  table.put(id, rec);
  return OK();
}

// ---- deletes and saved invoices --------------------------------------------------------------

export function deleteRecord(account: Account, entity: SandboxEntity, id: number): Reply {
  if (!account.tables[entity].remove(id)) throw notFound(entity === 'clients' ? 'Client' : 'Record', id);
  return OK();
}

/**
 * `POST /invoices`: `send` sends a new invoice at once, `save` makes a saved invoice named
 * `savename` (unique unless `overwrite_if_exist`), `repeat` a repeating invoice from `initialdate`
 * every `frequency`. 201 with the new id.
 */
export function createInvoice(account: Account, raw: unknown): Reply {
  const body = requireObject(raw);
  if (body.action === undefined || body.action === '') throw bad('action is required (send, save or repeat)');
  const action = readEnum(body.action, ['send', 'save', 'repeat'], 'action');
  if (body.clientnr === undefined || body.clientnr === '') throw bad('clientnr is required');
  const clientnr = readInt(body.clientnr, 'clientnr');
  if (!account.tables.clients.has(clientnr)) throw bad(`clientnr: client ${clientnr} does not exist`);
  const { action: _a, sendmethod, savename, overwrite_if_exist, alreadypaid, id: _id, ...fields } = body;
  const today = account.today();
  const document = (id: number): Rec => ({
    id: String(id),
    name: '',
    reference: blank3(),
    lines: [],
    profile: '1',
    discounttype: 'amount',
    discount: '0',
    paymentcondition: 'Betaling binnen %PAYMENT_PERIOD% dagen',
    paymentperiod: '14',
    totalintax: '0',
    clientnr: '',
  });
  if (action === 'save') {
    if (savename === undefined || savename === '') throw bad('savename is required when action is save');
    const name = readString(savename, 'savename');
    const table = account.tables.saved_invoices;
    const existing = table.records().find((r) => r.name === name);
    if (existing && !(overwrite_if_exist !== undefined && readBool(overwrite_if_exist, 'overwrite_if_exist')))
      throw bad(`savename: a saved invoice named "${name}" already exists (set overwrite_if_exist to overwrite it)`);
    const id = existing ? Number(existing.id) : table.nextId();
    const rec: Rec = { ...document(id), name, totaldiscount: '0', alreadypaid: '0', alreadypaidmethod: '' };
    account.change(
      'saved_invoices',
      rec,
      { ...fields, alreadypaid: alreadypaid === 'full' ? undefined : alreadypaid },
      true,
    );
    if (alreadypaid === 'full') rec.alreadypaid = rec.totalintax;
    table.put(id, rec);
    return created(id);
  }
  if (action === 'repeat') {
    for (const field of ['initialdate', 'frequency'] as const)
      if (fields[field] === undefined || fields[field] === '') throw bad(`${field} is required when action is repeat`);
    const table = account.tables.repeating_invoices;
    const id = table.nextId();
    const rec: Rec = {
      ...document(id),
      datesaved: today,
      initialdate: '',
      nextsenddate: '',
      finalsenddate: '',
      frequency: 'monthly',
      repeattype: 'auto',
      email: '',
    };
    account.change('repeating_invoices', rec, fields, true);
    rec.nextsenddate = rec.initialdate;
    table.put(id, rec);
    return created(id);
  }
  if (sendmethod !== undefined && sendmethod !== '') readSendmethod(sendmethod);
  const rec = document(0);
  account.change('saved_invoices', rec, fields, true);
  const invoice = account.send(rec);
  if (alreadypaid !== undefined && alreadypaid !== '' && alreadypaid !== 0 && alreadypaid !== '0')
    registerPayment(
      invoice,
      { amount: alreadypaid, date: today, method: String(fields.alreadypaidmethod ?? 'bank') },
      today,
    );
  account.invoices.touch(Number(invoice.id));
  return created(Number(invoice.id));
}

export const MAX_SEND_IDS = 10;

/** Validate a send body; returns the saved-invoice ids (all known) and the delete flag. */
export function readSendBody(account: Account, raw: unknown): { ids: number[]; deleteAfter: boolean } {
  const body = requireObject(raw);
  if (body.action === undefined || readString(body.action, 'action').toLowerCase() !== 'send')
    throw bad('action: only "send" is allowed');
  let list: unknown[];
  if (Array.isArray(body.id)) list = body.id;
  else if (body.id && typeof body.id === 'object') list = Object.values(body.id);
  else if (body.id !== undefined && body.id !== '') list = [body.id];
  else throw bad('id: an array of saved invoice ids is required');
  if (list.length === 0) throw bad('id: at least one id is required');
  if (list.length > MAX_SEND_IDS)
    throw bad(`id: at most ${MAX_SEND_IDS} invoices can be sent per call (got ${list.length})`);
  const ids = [...new Set(list.map((v) => readInt(v, 'id')))];
  const missing = ids.filter((i) => !account.tables.saved_invoices.has(i));
  if (missing.length > 0) throw new HttpError(404, `Saved invoice ${missing.join(', ')} not found; nothing was sent`);
  const deleteAfter = body.delete === undefined || body.delete === '' ? false : readBool(body.delete, 'delete');
  return { ids, deleteAfter };
}

export function idOf(entity: SandboxEntity, rec: Rec): number {
  return Number(rec[keyOf(entity)]);
}
