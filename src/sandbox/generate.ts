/**
 * Deterministic account data: each record comes from its own PRNG stream (seed, entity, id), so
 * the same seed and options always give the same account, and inserting later records does not
 * reshuffle earlier ones. Awkward values are mixed in on purpose.
 */
import { registerPayment, sentInvoice } from './invoices.js';
import { addDays, addMonths, dayMs } from './clock.js';
import { recompute, priceInTax } from './derive.js';
import { CLIENT_DETAILS, ENTITIES, FREQUENCIES, type SandboxEntity } from './fields.js';
import { chance, int, mixSeed, mulberry32, pick, type Rng } from './prng.js';
import { countryIdOf } from './countries.js';
import { adjustSentInvoice, assignClientVat, vatLines } from './vat-data.js';
import { linesToWire, money, round, type Rec, type WireLine } from './wire.js';

const FIRST = [
  'Anna',
  'Pieter',
  'Sanne',
  'Jeroen',
  'Fatima',
  'Mehmet',
  'Lotte',
  'Bram',
  'Noor',
  'Daan',
  'Eva',
  'Sem',
  'Zoë',
  'Chloé',
  'Jürgen',
  'Siobhán',
];
const LAST = [
  'Jansen',
  'de Vries',
  'van den Berg',
  'Bakker',
  'Visser',
  'Smit',
  'Meijer',
  'de Boer',
  'Mulder',
  'Yılmaz',
  'El Amrani',
  'van Dijk',
  "O'Neill",
  'Müller',
];
const TRADES = [
  'Bakkerij',
  'Schildersbedrijf',
  'Adviesbureau',
  'Fietsenmaker',
  'Bloemisterij',
  'Installatietechniek',
  'Kapsalon',
  'Webdesign',
];
const FOREIGN = ['BE', 'DE', 'FR', 'GB', 'US', 'ES'];
const SUFFIX = ['', ' B.V.', ' V.O.F.', ' & Zn.', ''];
const CITIES = [
  'Amsterdam',
  'Rotterdam',
  'Utrecht',
  'Den Haag',
  'Eindhoven',
  'Groningen',
  "'s-Hertogenbosch",
  'Zwolle',
  'Maastricht',
  'Leeuwarden',
];
const STREETS = [
  'Kerkstraat',
  'Dorpsstraat',
  'Stationsweg',
  'Molenweg',
  'Hoofdstraat',
  'Julianalaan',
  'Lange Nieuwstraat',
];
const AWKWARD_COMPANIES = [
  'Bakkerij "De Zon" B.V.',
  "Café 't Hoekje",
  'Ölmühle Müller GmbH',
  'Zoë & Søren ApS',
  '李记贸易有限公司',
  'Bloemen 🌷 Anna',
  "O'Brien & Daughters <Ltd>",
  'Back\\slash & "quotes" \'n more',
];
const PRODUCTS = [
  'Consult',
  'Uurtarief ontwikkeling',
  'Appels',
  'Verf wit 10L',
  'Fietsband 28"',
  'Knippen & föhnen',
  'Hosting (jaar)',
  'Boeket "Lente"',
  'Reiskosten',
  'Licentie ∞',
];
const UNITS = ['', 'uur', 'stuks', 'km', 'maand', 'kg'];
const CONDITIONS = [
  'Betaling binnen %PAYMENT_PERIOD% dagen',
  'Te voldoen binnen %PAYMENT_PERIOD% dagen na factuurdatum.',
  '',
  'Reeds voldaan',
];

/** How many records each entity gets by default: `records` split evenly, the remainder to the first ones. */
export function splitCounts(
  records: number,
  perEntity: Partial<Record<SandboxEntity, number>> = {},
): Record<SandboxEntity, number> {
  const base = Math.floor(records / ENTITIES.length);
  const rest = records % ENTITIES.length;
  const out = {} as Record<SandboxEntity, number>;
  for (const [i, e] of ENTITIES.entries()) out[e] = perEntity[e] ?? base + (i < rest ? 1 : 0);
  return out;
}

export interface GenContext {
  seed: number;
  today: string;
  /** Client records documents may refer to (only the first 70% get documents, so some clients can be deleted). */
  clients: Rec[];
}

const rngFor = (seed: number, entity: SandboxEntity | 'invoices', id: number): Rng =>
  mulberry32(mixSeed(seed, [...ENTITIES, 'invoices'].indexOf(entity) + 1, id));

function longNotes(rng: Rng): string {
  const words = [
    'Let op:',
    'levering',
    'naïef',
    'café',
    'Straße',
    '€',
    '—',
    '"quoted"',
    "it's",
    '日本語',
    'emoji 🚲',
    'regel\nnieuwe regel',
    'tab\there',
  ];
  const out: string[] = [];
  let length = 0;
  while (length < 6000) {
    const w = pick(rng, words);
    out.push(w);
    length += w.length + 1;
  }
  return out.join(' ');
}

function notes(rng: Rng): string {
  if (chance(rng, 0.02)) return longNotes(rng);
  if (chance(rng, 0.6)) return '';
  return pick(rng, [
    'Klant belt liever dan mailt.',
    'Factuur t.a.v. "administratie"',
    'Korting afgesproken: 5%',
    'Nieuw adres per 1/1',
    'Ünïcödé nötes ✓',
  ]);
}

function companyName(rng: Rng, id: number): string {
  if (id % 9 === 4) return AWKWARD_COMPANIES[Math.floor(id / 9) % AWKWARD_COMPANIES.length]!;
  return `${pick(rng, TRADES)} ${pick(rng, LAST)}${pick(rng, SUFFIX)}`.slice(0, 50);
}

function date(rng: Rng, today: string, fromDays: number, toDays: number): string {
  return addDays(today, int(rng, fromDays, toDays));
}

function reference(rng: Rng): Rec {
  if (chance(rng, 0.6)) return { line1: '', line2: '', line3: '' };
  return {
    line1: `Project ${int(rng, 100, 999)}`,
    line2: chance(rng, 0.5) ? `PO-${int(rng, 10000, 99999)}` : '',
    line3: '',
  };
}

export function makeLines(rng: Rng): WireLine[] {
  const n = chance(rng, 0.08) ? 0 : int(rng, 1, 6);
  const lines: WireLine[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0 && chance(rng, 0.15)) {
      lines.push({
        description: pick(rng, [
          'Geleverd op maandag',
          'Inclusief voorrijkosten',
          'Zie bijlage "specificatie"',
          '— tekstregel —',
        ]),
      });
      continue;
    }
    const amount = chance(rng, 0.2) ? int(rng, 1, 40) / 4 : int(rng, 1, 12);
    const price = chance(rng, 0.1) ? int(rng, 1, 99999) / 1000 : int(rng, 100, 250000) / 100;
    const discount_pct = chance(rng, 0.15) ? pick(rng, [5, 10, 12.5, 100]) : 0;
    const tax_rate = pick(rng, [21, 21, 21, 9, 0]);
    lines.push({
      amount,
      amount_desc: pick(rng, UNITS),
      description: pick(rng, PRODUCTS),
      tax_rate,
      price,
      discount_pct,
    });
  }
  return lines;
}

function clientDetails(rec: Rec, ctx: GenContext, rng: Rng, legacy: boolean): Rec | undefined {
  const pool = Math.max(1, Math.ceil(ctx.clients.length * 0.7));
  const client = legacy || ctx.clients.length === 0 ? undefined : ctx.clients[Math.floor(rng() * pool)];
  rec.clientnr = client ? client.clientnr : '0';
  for (const k of CLIENT_DETAILS) rec[k] = client ? client[k] : '';
  return client;
}

function discount(rng: Rng, rec: Rec, legacy: boolean): void {
  if (legacy) {
    rec.discounttype = '';
    rec.discount = '0';
  } else if (chance(rng, 0.2)) {
    rec.discounttype = pick(rng, ['amount', 'percentage']);
    rec.discount =
      rec.discounttype === 'amount' ? money(int(rng, 100, 5000) / 100) : String(pick(rng, [2, 5, 10, 2.5]));
  } else {
    rec.discounttype = pick(rng, ['amount', 'percentage']);
    rec.discount = '0';
  }
}

export function generateClient(seed: number, id: number, today: string): Rec {
  const rng = rngFor(seed, 'clients', id);
  const first = pick(rng, FIRST);
  const last = pick(rng, LAST);
  const company = chance(rng, 0.15) ? '' : companyName(rng, id);
  const autocollect = chance(rng, 0.25);
  const domain = `${
    last
      .toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z]/g, '') || 'klant'
  }${id}.nl`;
  const foreign = chance(rng, 0.1);
  const rec: Rec = {
    clientnr: String(id),
    contact: chance(rng, 0.1) ? '' : `${first} ${last}`,
    showcontact: chance(rng, 0.5) ? 'true' : 'false',
    company,
    address: `${pick(rng, STREETS)} ${int(rng, 1, 250)}${chance(rng, 0.1) ? '-bis' : ''}`,
    address_addon: chance(rng, 0.1) ? '2e verdieping' : '',
    zipcode: `${int(rng, 1000, 9999)} ${String.fromCharCode(65 + int(rng, 0, 25), 65 + int(rng, 0, 25))}`,
    city: pick(rng, CITIES),
    // Drawn as before (the draws after it stay as they were), then set with the VAT status below.
    country: foreign ? countryIdOf(pick(rng, FOREIGN)) : '146',
    phone: chance(rng, 0.3) ? '' : `010-${int(rng, 1000000, 9999999)}`,
    mobile: chance(rng, 0.5) ? '' : `06-${int(rng, 10000000, 99999999)}`,
    email: chance(rng, 0.1)
      ? ''
      : `${first
          .toLowerCase()
          .normalize('NFD')
          .replace(/[^a-z]/g, '')}@${domain}`,
    addon: chance(rng, 0.1) ? 'Afdeling Inkoop' : '',
    bankcode: chance(rng, 0.3) ? '' : `NL${int(rng, 10, 99)}ABNA0${int(rng, 100000000, 999999999)}`,
    biccode: chance(rng, 0.3) ? '' : 'ABNANL2A',
    taxnumber: chance(rng, 0.5) ? '' : `NL${int(rng, 100000000, 999999999)}B01`,
    tax_shifted: chance(rng, 0.05) ? 'true' : 'false',
    lastinvoice: chance(rng, 0.3) ? '' : date(rng, today, -700, -1),
    sendmethod: pick(rng, ['email', 'email', 'mail', 'printcenter']),
    paymentmethod: autocollect ? 'autocollect' : 'bank',
    top: String(pick(rng, [14, 30, 30, 60])),
    stddiscount: chance(rng, 0.1) ? String(pick(rng, [2, 5, 2.5])) : '0',
    mailintro: pick(rng, ['Geachte heer/mevrouw,', 'Beste klant,', 'Dear Sir/Madam,', '']),
    reference: reference(rng),
    notes: notes(rng),
    notes_on_invoice: chance(rng, 0.1) ? 'true' : 'false',
    active: chance(rng, 0.9) ? 'true' : 'false',
    default_doclang: pick(rng, ['', '', 'nl', 'en', 'de']),
    default_email: '0',
    email_reminder: chance(rng, 0.1) ? `herinnering@${domain}` : '',
    currency: foreign && chance(rng, 0.5) ? pick(rng, ['USD', 'GBP']) : 'EUR',
    mandate_id: autocollect ? `MND-${String(id).padStart(6, '0')}` : '',
    mandate_date: autocollect ? date(rng, today, -900, -30) : '',
    collecttype: autocollect ? pick(rng, ['FRST', 'RCUR', 'OOFF']) : 'FRST',
    tax_type: chance(rng, 0.8) ? 'extax' : 'intax',
    default_category: chance(rng, 0.8) ? '0' : String(int(rng, 1, 5)),
  };
  assignClientVat(seed, rec);
  if (id % 13 === 0) rec.custom_1 = chance(rng, 0.5) ? '' : 'VIP';
  if (id % 17 === 0) rec.timestamp = String(1_700_000_000 + id * 37);
  return rec;
}

export function generateProduct(seed: number, id: number): Rec {
  const rng = rngFor(seed, 'products', id);
  const price = chance(rng, 0.15) ? int(rng, 1, 999999) / 1000 : int(rng, 50, 100000) / 100;
  const taxes = pick(rng, [21, 21, 9, 0]);
  const stockUse = chance(rng, 0.4);
  const rec: Rec = {
    id: String(id),
    code: chance(rng, 0.1) ? '' : `P-${String(id).padStart(5, '0')}`,
    name: id % 11 === 3 ? `${pick(rng, PRODUCTS)} "premium" – ü` : pick(rng, PRODUCTS),
    price: String(price),
    taxes: String(taxes),
    priceintax: priceInTax(price, taxes),
    notes: notes(rng),
    stock: stockUse ? pick(rng, [0, int(rng, 1, 500), int(rng, 1, 100) / 4, -2]) : false,
    stock_use: stockUse ? 'true' : 'false',
  };
  if (id % 7 === 0) rec.category = '0';
  return rec;
}

/** Quotation states cycle through every combination the spec allows. */
const QUOTATION_STATES: { sent: boolean; approved?: boolean; status?: string; legacyApproved?: boolean }[] = [
  { sent: false },
  { sent: false, legacyApproved: true },
  { sent: true },
  { sent: true, approved: true },
  { sent: true, status: 'progress' },
  { sent: true, status: 'completed' },
  { sent: true, status: 'billable', approved: true },
  { sent: true, status: 'declined' },
];

export function generateQuotation(seed: number, id: number, ctx: GenContext): Rec {
  const rng = rngFor(seed, 'quotations', id);
  const state = QUOTATION_STATES[id % QUOTATION_STATES.length]!;
  const legacy = id % 41 === 7;
  const rec: Rec = { id: String(id) };
  rec.savename = `Offerte ${id}${chance(rng, 0.3) ? ` ${pick(rng, AWKWARD_COMPANIES)}` : ''}`.slice(0, 40);
  rec.quotationreference = `OF-${ctx.today.slice(0, 4)}-${String(id).padStart(5, '0')}`;
  rec.reference = reference(rng);
  rec.lines = linesToWire(makeLines(rng));
  rec.profile = legacy ? '0' : '1';
  if (!legacy) rec.profile_name = 'Standaard';
  rec.category = '0';
  rec.category_name = '';
  discount(rng, rec, legacy);
  rec.paymentcondition = pick(rng, CONDITIONS);
  rec.quotationperiod = String(pick(rng, [14, 30, 30, 60]));
  rec.showtotals = chance(rng, 0.7) ? '1' : '0';
  rec.date = legacy && chance(rng, 0.5) ? '' : date(rng, ctx.today, -200, 0);
  rec.datedue = '';
  rec.notes = notes(rng);
  rec.totalintax = '0';
  rec.convert_prices_to_euro = chance(rng, 0.05) ? '1' : '0';
  rec.sent = state.sent ? 'true' : 'false';
  rec.sendmethod = state.sent ? pick(rng, ['email', 'mail', 'printcenter']) : '';
  rec.customstatus = state.status ?? '';
  rec.approved = state.approved
    ? {
        name: `${pick(rng, FIRST)} ${pick(rng, LAST)}`,
        date: rec.date || ctx.today,
        ip: `192.0.2.${int(rng, 1, 254)}`,
        comments: pick(rng, ['', 'Akkoord', 'Graag starten in "week 3"']),
      }
    : state.legacyApproved
      ? ''
      : [];
  const client = clientDetails(rec, ctx, rng, legacy);
  rec.phone = client?.phone ?? '';
  rec.mobile = client?.mobile ?? '';
  rec.email = client?.email ?? '';
  rec.sign_url = `https://www.factuursturen.nl/sign/${(mixSeed(seed, id, 99).toString(16) + mixSeed(id, seed).toString(16)).padStart(16, '0')}`;
  recompute('quotations', rec);
  return rec;
}

export function generateSavedInvoice(seed: number, id: number, ctx: GenContext): Rec {
  const rng = rngFor(seed, 'saved_invoices', id);
  const legacy = id % 37 === 5;
  const rec: Rec = { id: String(id) };
  rec.name = id % 3 === 0 ? `F/${ctx.today.slice(0, 4)}/${String(id).padStart(5, '0')}` : `Concept ${id}`;
  rec.reference = reference(rng);
  rec.lines = linesToWire(makeLines(rng));
  rec.profile = legacy ? '0' : '1';
  discount(rng, rec, legacy);
  rec.paymentcondition = pick(rng, CONDITIONS);
  rec.paymentperiod = String(pick(rng, [14, 30, 30, 60]));
  rec.totaldiscount = '0';
  rec.totalintax = '0';
  const paid = chance(rng, 0.15);
  rec.alreadypaid = paid ? money(int(rng, 100, 10000) / 100) : '0';
  rec.alreadypaidmethod = paid ? pick(rng, ['bank', 'cash', 'ideal']) : '';
  clientDetails(rec, ctx, rng, legacy);
  if (!legacy) rec.profile_name = 'Standaard';
  if (id % 10 === 0) rec.timestamp = String(1_700_000_000 + id * 53);
  recompute('saved_invoices', rec);
  return rec;
}

/** The next send date after `day` for a frequency. */
export function stepFrequency(day: string, frequency: string): string {
  switch (frequency.toLowerCase()) {
    case 'weekly':
      return addDays(day, 7);
    case 'biweekly':
      return addDays(day, 14);
    case 'fourweekly':
      return addDays(day, 28);
    case 'bimonthly':
      return addMonths(day, 2);
    case 'quarterly':
      return addMonths(day, 3);
    case 'halfyearly':
      return addMonths(day, 6);
    case 'yearly':
      return addMonths(day, 12);
    default:
      return addMonths(day, 1);
  }
}

export function generateRepeatingInvoice(seed: number, id: number, ctx: GenContext): Rec {
  const rng = rngFor(seed, 'repeating_invoices', id);
  const legacy = id % 43 === 11;
  const frequency = pick(rng, FREQUENCIES);
  const rec: Rec = { id: String(id) };
  rec.name = `Abonnement ${id}`.slice(0, 20);
  rec.reference = reference(rng);
  rec.lines = linesToWire(makeLines(rng));
  rec.profile = legacy ? '0' : '1';
  discount(rng, rec, legacy);
  rec.paymentcondition = pick(rng, CONDITIONS);
  rec.paymentperiod = String(pick(rng, [14, 30]));
  rec.totalintax = '0';
  const client = clientDetails(rec, ctx, rng, legacy);
  rec.datesaved = date(rng, ctx.today, -800, -10);
  rec.initialdate = addDays(rec.datesaved as string, int(rng, 0, 9));
  let next = rec.initialdate as string;
  const stepDays = { weekly: 7, biweekly: 14, fourweekly: 28 }[frequency as string];
  if (stepDays && next <= ctx.today)
    next = addDays(next, (Math.floor((dayMs(ctx.today) - dayMs(next)) / 86_400_000 / stepDays) + 1) * stepDays);
  while (next <= ctx.today) next = stepFrequency(next, frequency);
  rec.repeattype = chance(rng, 0.7) ? 'auto' : 'manual';
  // Some sent by hand wait for someone: their next send date has passed and stays until they are sent.
  if (rec.repeattype === 'manual' && id % 4 === 1) next = addDays(ctx.today, -int(rng, 1, 60));
  rec.nextsenddate = next;
  // Half never end; the rest end within 1-400 days, some soon enough for a test to pass the date.
  rec.finalsenddate = chance(rng, 0.5) ? '' : addDays(next, int(rng, 0, 400));
  rec.frequency = frequency;
  rec.email = client?.email ?? '';
  recompute('repeating_invoices', rec);
  return rec;
}

export function generateRecord(entity: SandboxEntity, id: number, ctx: GenContext): Rec {
  switch (entity) {
    case 'clients':
      return generateClient(ctx.seed, id, ctx.today);
    case 'products':
      return generateProduct(ctx.seed, id);
    case 'quotations':
      return generateQuotation(ctx.seed, id, ctx);
    case 'saved_invoices':
      return generateSavedInvoice(ctx.seed, id, ctx);
    case 'repeating_invoices':
      return generateRepeatingInvoice(ctx.seed, id, ctx);
  }
}

/**
 * Invoices sent before the sandbox started, so that lists and search have history: most older
 * ones paid (on time or late), some partly paid, a few uncollectible, the newest still open; the
 * legacy ones (as old accounts hold them) with no sent or due date.
 */
export function generateSentInvoice(seed: number, id: number, ctx: GenContext): Rec {
  const saved = generateSavedInvoice(seed ^ 0x5eed, id, ctx);
  const rng = rngFor(seed, 'invoices', id);
  const legacy = id % 41 === 7;
  const day = date(rng, ctx.today, -700, -1);
  const invoicenr = legacy
    ? `${day.slice(0, 4)}-${String(id).padStart(2, '0')}`
    : `F${day.slice(0, 4)}${String(id).padStart(5, '0')}`;
  const client = ctx.clients.find((c) => c.clientnr === saved.clientnr);
  vatLines(id, saved, client);
  const invoice = sentInvoice({ ...saved, alreadypaid: '0' }, id, invoicenr, day, client);
  adjustSentInvoice(id, invoice, day);
  const total = Number(invoice.totalintax) || 0;
  const due = String(invoice.duedate);
  const roll = rng();
  if (due < ctx.today && total > 0) {
    // Paid between ten days early and forty days late, never after today.
    const paid = [addDays(due, int(rng, -10, 40)), ctx.today].sort()[0]!;
    if (roll < 0.7) registerPayment(invoice, { amount: 'full', date: paid, method: 'bank' }, ctx.today);
    else if (roll < 0.8)
      registerPayment(invoice, { amount: round(total / 2, 2), date: paid, method: 'bank' }, ctx.today);
    else if (roll < 0.83 && addDays(due, 60) < ctx.today) invoice.uncollectible = addDays(due, 60);
  }
  if (legacy)
    Object.assign(invoice, { sent: '', duedate: '', profile: '0', discounttype: '', history: [], tax_shifted: null });
  return invoice;
}
