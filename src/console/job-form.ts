/**
 * The job form's fields: one typed input per field of a kind's payload, read from its zod schema
 * (numbers, text, dates, checkboxes, a select for an enumeration, a list of ids; a nested object as
 * a small JSON box). The inputs edit the payload's JSON (jobform.js keeps the two in step), so the
 * JSON posted, and its validation, are the same whichever view is used.
 */
import { ENTITIES } from '../catalog/index.js';
import { KINDS, type JobKindName } from '../jobs/index.js';
import { html, type Html } from './layout.js';

export type FieldInput = 'integer' | 'number' | 'text' | 'amount' | 'date' | 'checkbox' | 'select' | 'ids' | 'json';

export interface FormField {
  readonly name: string;
  readonly input: FieldInput;
  readonly required: boolean;
  readonly options?: readonly string[];
  readonly help: string;
}

/** What the payload fields mean, where the catalogue's columns do not say it under the same name. */
const MEANINGS: Readonly<Record<string, string>> = {
  id: 'id of the record the job acts on',
  ids: 'ids of the saved invoices to send, separated by commas',
  delete: 'remove the saved invoices once they are sent',
  stock: 'units in stock to set',
  sendmethod: 'how to send it',
  customstatus: 'the status to set (`clear` removes it)',
  name: 'name of the person who approved',
  date: 'date, YYYY-MM-DD',
  comments: 'comments with the approval',
  amount: 'amount paid, or "full" for all that is open',
  method: 'payment method',
  attach_invoice: 'attach the invoice to the reminder',
  changes: 'the fields to change, as JSON',
  client: "the client's fields, as JSON",
  product: "the product's fields, as JSON",
  quotation: "the quotation's fields, as JSON",
  invoice: "the invoice's fields, as JSON",
};

/** A column's meaning from the catalogue, for a field of the same name. */
function catalogueMeaning(name: string): string | undefined {
  for (const entity of ENTITIES)
    for (const [field, spec] of Object.entries(entity.fields))
      if (field === name && 'doc' in spec) return (spec as { doc: string }).doc;
  return undefined;
}

interface ZodNode {
  _zod: {
    def: {
      type: string;
      format?: string;
      innerType?: ZodNode;
      in?: ZodNode;
      element?: ZodNode;
      entries?: Record<string, string>;
      options?: ZodNode[];
      shape?: Record<string, ZodNode>;
    };
  };
}

/** The input for one schema node, and whether the field may be left out. */
function inputOf(node: ZodNode): { input: FieldInput; required: boolean; options?: string[] } {
  let current = node;
  let required = true;
  for (let depth = 0; depth < 8; depth++) {
    const def = current._zod.def;
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) {
      required = false;
      current = def.innerType;
    } else if (def.type === 'pipe' && def.in) current = def.in;
    else break;
  }
  const def = current._zod.def;
  switch (def.type) {
    case 'number':
      return { input: def.format && /int/.test(def.format) ? 'integer' : 'number', required };
    case 'boolean':
      return { input: 'checkbox', required };
    case 'enum':
      return { input: 'select', required, options: Object.values(def.entries ?? {}) };
    case 'string':
      return { input: def.format === 'date' ? 'date' : 'text', required };
    case 'array':
      return { input: def.element?._zod.def.type === 'number' ? 'ids' : 'json', required };
    case 'union':
      // A number or a word (an amount or "full"): typed as text, sent as a number when it is one.
      return {
        input: def.options?.some((option) => option._zod.def.type === 'number') ? 'amount' : 'text',
        required,
      };
    default:
      return { input: 'json', required };
  }
}

const TYPE_WORDS: Record<FieldInput, string> = {
  integer: 'a whole number',
  number: 'a number',
  text: 'text',
  amount: 'a number or a word',
  date: 'a date',
  checkbox: 'yes or no',
  select: 'one of the list',
  ids: 'whole numbers',
  json: 'JSON',
};

/** The fields of a kind's payload, in the schema's order (none when its payload is not an object). */
export function payloadFields(kindName: string): FormField[] {
  const kind = (KINDS as Record<string, (typeof KINDS)[JobKindName]>)[kindName];
  if (!kind) return [];
  let node = kind.payload as unknown as ZodNode;
  for (let depth = 0; depth < 5 && !node._zod.def.shape; depth++) {
    const def = node._zod.def;
    const next = def.innerType ?? def.in;
    if (!next) break;
    node = next;
  }
  const shape = node._zod.def.shape;
  if (!shape) return [];
  return Object.entries(shape).map(([name, schema]) => {
    const { input, required, options } = inputOf(schema);
    const meaning = MEANINGS[name] ?? catalogueMeaning(name) ?? name.replace(/_/g, ' ');
    const help = `${meaning} (${TYPE_WORDS[input]}${required ? '' : ', optional'})`;
    return { name, input, required, help, ...(options ? { options } : {}) };
  });
}

/** The inputs of a kind's payload fields; `failed` names the field the last refusal was about. */
export function fieldInputs(kindName: string, failed?: string): Html {
  const fields = payloadFields(kindName);
  if (fields.length === 0) return html``;
  const input = (field: FormField) => {
    const data = html`data-field="${field.name}" data-type="${field.input}" ${field.required ? html`data-required` : ''}`;
    switch (field.input) {
      case 'integer':
        return html`<input type="number" step="1" ${data} />`;
      case 'number':
        return html`<input type="number" step="any" ${data} />`;
      case 'date':
        return html`<input type="date" ${data} />`;
      case 'checkbox':
        return html`<input type="checkbox" ${data} />`;
      case 'select':
        return html`<select ${data}><option value=""></option>${(field.options ?? []).map(
          (option) => html`<option value="${option}">${option === '' ? '(none)' : option}</option>`,
        )}</select>`;
      case 'json':
        return html`<textarea rows="3" spellcheck="false" ${data}></textarea>`;
      default:
        return html`<input type="text" ${data} />`;
    }
  };
  return html`<fieldset id="payload-fields"><legend>payload fields</legend>
    ${fields.map(
      (field) =>
        html`<label class="${field.input === 'checkbox' ? 'check' : ''} ${field.name === failed ? 'field-error' : ''}">${field.name} ${input(field)}
          <span class="help">${field.help}</span></label>`,
    )}
  </fieldset>`;
}

/** Keeps the field inputs and the payload's JSON in step, both ways. */
export const JOB_FORM_SCRIPT = `
function jobForm() {
  const box = document.getElementById('payload-fields');
  const area = document.querySelector('textarea[name="payload"]');
  if (!box || !area) return;
  const inputs = [...box.querySelectorAll('[data-field]')];
  const read = () => {
    try {
      const value = JSON.parse(area.value);
      return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
    } catch { return null; }
  };
  const show = () => {
    const payload = read();
    if (!payload) return;
    for (const input of inputs) {
      const value = payload[input.dataset.field];
      const type = input.dataset.type;
      if (type === 'checkbox') input.checked = value === true || value === 'true' || value === 1;
      else if (type === 'ids') input.value = Array.isArray(value) ? value.join(', ') : '';
      else if (type === 'json') input.value = value === null || value === undefined ? '' : JSON.stringify(value);
      else input.value = value === null || value === undefined ? '' : String(value);
    }
  };
  const number = /^-?\\d+(\\.\\d+)?$/;
  const valueOf = (input) => {
    const type = input.dataset.type;
    if (type === 'checkbox') return input.checked;
    const raw = input.value.trim();
    if (raw === '') return undefined;
    if (type === 'integer' || type === 'number' || type === 'amount') return number.test(raw) ? Number(raw) : raw;
    if (type === 'ids') return raw.split(/[\\s,]+/).filter(Boolean).map((id) => (/^\\d+$/.test(id) ? Number(id) : id));
    if (type === 'json') { try { return JSON.parse(raw); } catch { return raw; } }
    return raw;
  };
  const write = (input) => {
    const payload = read() ?? {};
    const value = valueOf(input);
    if (value === undefined) {
      if ('required' in input.dataset) payload[input.dataset.field] = null;
      else delete payload[input.dataset.field];
    } else payload[input.dataset.field] = value;
    area.value = JSON.stringify(payload);
  };
  for (const input of inputs) {
    input.addEventListener('input', () => write(input));
    input.addEventListener('change', () => write(input));
  }
  area.addEventListener('input', show);
  show();
}
document.addEventListener('DOMContentLoaded', jobForm);
`;
