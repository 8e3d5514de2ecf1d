/**
 * The account's data: the five record kinds, the invoices produced by sending, and the rules that
 * keep them consistent (totals, client details on documents, repeating invoices over time).
 */
import { ACCOUNT_TAX_RATES, applyFields, CLIENT_DETAILS, ENTITIES, keyOf, type SandboxEntity } from './fields.js';
import { recompute, priceInTax } from './derive.js';
import { generateRecord, generateSentInvoice, splitCounts, stepFrequency, type GenContext } from './generate.js';
import { sentInvoice } from './invoices.js';
import { generateCategories, generateTaxRates } from './reference.js';
import { chance, int, mixSeed, mulberry32, pick, type Rng } from './prng.js';
import { Table } from './table.js';
import { bad, decimalsOf, readNumber, type Rec } from './wire.js';

export interface SandboxStore {
  list(entity: SandboxEntity): Record<string, unknown>[];
  get(entity: SandboxEntity, id: number): Record<string, unknown> | undefined;
  insert(entity: SandboxEntity, fields?: Record<string, unknown>): number;
  update(entity: SandboxEntity, id: number, changes: Record<string, unknown>): void;
  /**
   * Sets fields exactly as given, as they will go on the wire, with no checks and nothing derived:
   * for faults a real account may hold (a NUL in a name, `"2027-02-30"`, `"1e400"`, a `lines` map).
   */
  setWire(entity: SandboxEntity, id: number, fields: Record<string, unknown>): void;
  delete(entity: SandboxEntity, id: number): void;
  restore(entity: SandboxEntity, id: number): void;
  /** The sent invoices (`GET /invoices`), in id order. */
  sentInvoices(): Record<string, unknown>[];
  /** The saved invoices sent so far, in order (one sent twice is listed twice). */
  sentSavedIds(): number[];
  /** Which sent invoice each send made, in order. */
  sendLog(): readonly { savedId: number; invoiceId: number }[];
  /** Every payment registered through the API, in order: the invoice and the body as sent. */
  paymentLog(): readonly { invoiceId: number; body: Record<string, unknown> }[];
  /** Sets fields of a sent invoice exactly as given (a payment or a reminder made in the web application, say). */
  setInvoiceWire(id: number, fields: Record<string, unknown>): void;
  deleteInvoice(id: number): void;
  /** Extra: `count` random changes (update, delete, insert, restore), deterministic per seed; returns what changed. */
  churn(count: number): ChurnChange[];
}

export interface ChurnChange {
  op: 'insert' | 'update' | 'delete' | 'restore';
  entity: SandboxEntity;
  id: number;
}

export interface AccountOptions {
  seed: number;
  records: number;
  perEntity?: Partial<Record<SandboxEntity, number>>;
  /** Invoices sent before the start (default: as many as saved invoices, at most 500). */
  sentInvoices?: number;
  today: () => string;
}

const DOCUMENTS: SandboxEntity[] = ['quotations', 'saved_invoices', 'repeating_invoices'];

export class Account {
  readonly tables: Record<SandboxEntity, Table>;
  /** Invoices that were sent (area `invoices` of search). */
  readonly invoices = new Table();
  /** The account's VAT rates (`GET /taxes`) and categories (`GET /categories`), as the wire has them. */
  readonly taxRates: Rec[];
  readonly categories: Rec[];
  private readonly churnRng: Rng;
  private lastDay: string;

  constructor(private readonly options: AccountOptions) {
    this.tables = Object.fromEntries(ENTITIES.map((e) => [e, new Table()])) as Record<SandboxEntity, Table>;
    this.churnRng = mulberry32(mixSeed(options.seed, 0xc4a2));
    this.taxRates = generateTaxRates(options.seed);
    this.categories = generateCategories(options.seed);
    this.lastDay = options.today();
    const counts = splitCounts(options.records, options.perEntity);
    const ctx: GenContext = { seed: options.seed, today: this.lastDay, clients: [] };
    for (let id = 1; id <= counts.clients; id++) this.tables.clients.put(id, generateRecord('clients', id, ctx));
    ctx.clients = this.tables.clients.records();
    for (const entity of ENTITIES.slice(1))
      for (let id = 1; id <= counts[entity]; id++) this.tables[entity].put(id, generateRecord(entity, id, ctx));
    const history = options.sentInvoices ?? Math.min(counts.saved_invoices, 500);
    for (let id = 1; id <= history; id++) this.invoices.put(id, generateSentInvoice(options.seed, id, ctx));
    for (const entity of ENTITIES) this.tables[entity].warm();
    this.invoices.warm();
  }

  get seed(): number {
    return this.options.seed;
  }

  today(): string {
    return this.options.today();
  }

  client(clientnr: unknown): Rec | undefined {
    const n = Number(clientnr);
    return Number.isInteger(n) ? this.tables.clients.get(n) : undefined;
  }

  /** Copy a client's contact details onto a document (they are read-only there). */
  copyClientDetails(rec: Rec, withPhone: boolean): void {
    const client = this.client(rec.clientnr);
    for (const k of CLIENT_DETAILS) rec[k] = client ? client[k] : '';
    if (withPhone) for (const k of ['phone', 'mobile', 'email']) rec[k] = client ? client[k] : '';
  }

  clientHasDocuments(clientnr: number): boolean {
    const nr = String(clientnr);
    for (const e of DOCUMENTS) for (const r of this.tables[e].records()) if (r.clientnr === nr) return true;
    for (const r of this.invoices.records()) if (r.clientnr === nr) return true;
    return false;
  }

  /** Saved invoices are addressed by id or by their name (the invoice number, which may hold '/'). */
  findSaved(idOrName: string): number | undefined {
    const t = this.tables.saved_invoices;
    if (/^\d+$/.test(idOrName) && t.has(Number(idOrName))) return Number(idOrName);
    for (const r of t.records()) if (r.name === idOrName) return Number(r.id);
    return undefined;
  }

  /** Sent invoices are addressed by id or by invoice number (which may hold '/'); the id is tried first. */
  findInvoice(idOrNumber: string): number | undefined {
    if (/^\d+$/.test(idOrNumber) && this.invoices.has(Number(idOrNumber))) return Number(idOrNumber);
    for (const r of this.invoices.records()) if (r.invoicenr === idOrNumber) return Number(r.id);
    return undefined;
  }

  /** The next invoice number, as the service numbers them: `F` + year + a running number. */
  private nextInvoice(day: string): { id: number; invoicenr: string } {
    const id = this.invoices.nextId();
    return { id, invoicenr: `F${day.slice(0, 4)}${String(id).padStart(5, '0')}` };
  }

  /**
   * Every saved invoice the service sent, in order, with the sent invoice it became: a test can
   * see exactly what went out (a saved invoice sent twice is in it twice).
   */
  readonly sendLog: { savedId: number; invoiceId: number; at: string }[] = [];
  /** Every payment registered through the API, in order (one registered twice is in it twice). */
  readonly paymentLog: { invoiceId: number; body: Rec; at: string }[] = [];
  /** Every invoice a repeating invoice produced (the service's own record of this is not known). */
  readonly repeatLog: { repeatingId: number; invoiceId: number }[] = [];

  /** Turn a saved invoice into a sent invoice (and drop the saved one when asked). */
  sendSaved(id: number, deleteAfter: boolean): Rec | undefined {
    const saved = this.tables.saved_invoices.get(id);
    if (!saved) return undefined;
    const invoice = this.send(saved);
    this.sendLog.push({ savedId: id, invoiceId: Number(invoice.id), at: new Date().toISOString() });
    if (deleteAfter) this.tables.saved_invoices.remove(id);
    return invoice;
  }

  /** Send a document (a saved invoice, or the fields of `POST /invoices` with action send) today. */
  send(document: Rec): Rec {
    const today = this.today();
    const { id, invoicenr } = this.nextInvoice(today);
    const client = this.client(document.clientnr);
    const invoice = sentInvoice(document, id, invoicenr, today, client);
    this.invoices.put(id, invoice);
    if (client) {
      client.lastinvoice = today;
      this.tables.clients.touch(Number(client.clientnr));
    }
    return invoice;
  }

  /**
   * The clock moved: repeating invoices whose next send date has come are sent (auto) and move on
   * by their frequency; those past their final send date disappear.
   */
  onClock(): void {
    const today = this.today();
    if (today === this.lastDay) return;
    this.lastDay = today;
    const t = this.tables.repeating_invoices;
    for (const id of [...t.idList()]) {
      const rec = t.get(id)!;
      const final = String(rec.finalsenddate ?? '');
      let next = String(rec.nextsenddate ?? '');
      let moved = false;
      while (next && next <= today && (!final || next <= final)) {
        if (String(rec.repeattype).toLowerCase() === 'auto') {
          const { id: invId, invoicenr } = this.nextInvoice(next);
          this.invoices.put(invId, sentInvoice(rec, invId, invoicenr, next, this.client(rec.clientnr)));
          this.repeatLog.push({ repeatingId: Number(rec.id), invoiceId: invId });
        }
        next = stepFrequency(next, String(rec.frequency));
        moved = true;
      }
      if (final && final < today) t.remove(id);
      else if (moved) {
        rec.nextsenddate = next;
        t.touch(id);
      }
    }
  }

  /** Apply changes to a record and re-derive what depends on them. */
  change(entity: SandboxEntity, rec: Rec, changes: Rec, strict: boolean): void {
    const before = { price: rec.price, taxes: rec.taxes, clientnr: rec.clientnr };
    applyFields(entity, rec, changes, strict);
    if (entity === 'products') productSpecials(rec, changes, before, strict);
    if (DOCUMENTS.includes(entity) && before.clientnr !== rec.clientnr)
      this.copyClientDetails(rec, entity === 'quotations');
    recompute(entity, rec);
  }

  /** Generate a record with a fresh id (or the id given in fields), apply overrides, store it. */
  insertGenerated(entity: SandboxEntity, fields: Rec = {}): number {
    const table = this.tables[entity];
    const key = keyOf(entity);
    const wanted = fields[key] !== undefined ? Number(fields[key]) : undefined;
    const id =
      wanted !== undefined && Number.isInteger(wanted) && wanted > 0 && !table.has(wanted) ? wanted : table.nextId();
    const ctx: GenContext = {
      seed: this.options.seed,
      today: this.today(),
      clients: entity === 'clients' ? [] : this.tables.clients.records(),
    };
    const rec = generateRecord(entity, id, ctx);
    const { [key]: _ignored, ...rest } = fields;
    this.change(entity, rec, rest, false);
    table.put(id, rec);
    return id;
  }

  churn(count: number): ChurnChange[] {
    const rng = this.churnRng;
    const out: ChurnChange[] = [];
    for (let i = 0; i < count; i++) {
      const entity = pick(rng, ENTITIES);
      const table = this.tables[entity];
      const deleted = table.deletedIds();
      const roll = rng();
      const ids = table.idList();
      if (roll < 0.15 && deleted.length > 0) {
        const id = pick(rng, deleted);
        table.restore(id);
        out.push({ op: 'restore', entity, id });
      } else if (roll < 0.35 || ids.length === 0) {
        out.push({ op: 'insert', entity, id: this.insertGenerated(entity) });
      } else if (roll < 0.5) {
        const id = pick(rng, ids);
        table.remove(id);
        out.push({ op: 'delete', entity, id });
      } else {
        const id = pick(rng, ids);
        const rec = table.get(id)!;
        this.change(entity, rec, randomChange(entity, rng), false);
        table.touch(id);
        out.push({ op: 'update', entity, id });
      }
    }
    return out;
  }
}

/** Taxes, price including tax and stock of a product, which depend on each other. */
function productSpecials(rec: Rec, changes: Rec, before: { price: unknown; taxes: unknown }, strict: boolean): void {
  if (changes.taxes !== undefined) {
    const taxes = readNumber(changes.taxes, 'taxes');
    if (strict && !(ACCOUNT_TAX_RATES as readonly number[]).includes(taxes))
      throw bad(`taxes: ${taxes} is not a tax percentage of this account (${ACCOUNT_TAX_RATES.join(', ')})`);
    rec.taxes = String(taxes);
  }
  if (changes.priceintax !== undefined && changes.priceintax !== '') {
    const p = readNumber(changes.priceintax, 'priceintax');
    if (strict && decimalsOf(String(p)) > 3) throw bad('priceintax: at most 3 decimals');
    rec.priceintax = String(p);
  } else if (changes.priceintax === '' || before.price !== rec.price || before.taxes !== rec.taxes) {
    rec.priceintax = priceInTax(rec.price, rec.taxes);
  }
  if (changes.stock !== undefined) {
    if (changes.stock === false || changes.stock === 'false') {
      rec.stock = false;
      rec.stock_use = 'false';
    } else {
      rec.stock = readNumber(changes.stock, 'stock');
      // Setting a stock switches stock keeping on, so the number is not silently lost.
      rec.stock_use = 'true';
    }
  } else if (changes.stock_use !== undefined) {
    if (rec.stock_use === 'false') rec.stock = false;
    else if (rec.stock === false) rec.stock = 0;
  }
}

function randomChange(entity: SandboxEntity, rng: Rng): Rec {
  const stamp = `gewijzigd ${int(rng, 1, 99999)}`;
  switch (entity) {
    case 'clients':
      return chance(rng, 0.5) ? { city: pick(rng, ['Delft', 'Haarlem', 'Arnhem', 'Tilburg']) } : { notes: stamp };
    case 'products':
      return chance(rng, 0.5) ? { price: int(rng, 100, 99999) / 100 } : { name: `Product ${stamp}` };
    case 'quotations':
      return { notes: stamp };
    case 'saved_invoices':
      return {
        lines: [{ amount: int(rng, 1, 9), description: stamp, price: int(rng, 100, 9999) / 100, tax_rate: 21 }],
      };
    case 'repeating_invoices':
      return { reference: { line1: stamp } };
  }
}

/** The in-process face of the data for tests: wire-form copies in, wire-form copies out. */
export function storeFacade(account: Account): SandboxStore {
  const table = (entity: SandboxEntity): Table => {
    const t = account.tables[entity];
    if (!t) throw new Error(`unknown entity: ${String(entity)}`);
    return t;
  };
  return {
    list: (entity) => JSON.parse(table(entity).page(0, -1).toString('utf8')) as Rec[],
    get(entity, id) {
      const json = table(entity).json(id);
      return json === undefined ? undefined : (JSON.parse(json) as Rec);
    },
    insert: (entity, fields) => account.insertGenerated(entity, fields ?? {}),
    update(entity, id, changes) {
      const rec = table(entity).get(id);
      if (!rec) throw new Error(`${entity} ${id} does not exist`);
      account.change(entity, rec, changes, false);
      table(entity).touch(id);
    },
    setWire(entity, id, fields) {
      const rec = table(entity).get(id);
      if (!rec) throw new Error(`${entity} ${id} does not exist`);
      Object.assign(rec, fields);
      table(entity).touch(id);
    },
    delete(entity, id) {
      if (!table(entity).remove(id)) throw new Error(`${entity} ${id} does not exist`);
    },
    restore(entity, id) {
      if (!table(entity).restore(id)) throw new Error(`${entity} ${id} is not a deleted record`);
    },
    sentInvoices: () => JSON.parse(account.invoices.page(0, -1).toString('utf8')) as Rec[],
    sentSavedIds: () => account.sendLog.map((entry) => entry.savedId),
    sendLog: () => account.sendLog.map(({ savedId, invoiceId }) => ({ savedId, invoiceId })),
    paymentLog: () => account.paymentLog.map(({ invoiceId, body }) => ({ invoiceId, body: { ...body } })),
    setInvoiceWire(id, fields) {
      const rec = account.invoices.get(id);
      if (!rec) throw new Error(`invoice ${id} does not exist`);
      Object.assign(rec, fields);
      account.invoices.touch(id);
    },
    deleteInvoice(id) {
      if (!account.invoices.remove(id)) throw new Error(`invoice ${id} does not exist`);
    },
    churn: (count) => account.churn(count),
  };
}
