/** Validation of the run-time knobs, shared by startSandbox, the admin routes and the command line. */
import { FAULT_KINDS, RANDOM_FAULT_KINDS, type FaultKind } from './faults.js';
import type { Knobs } from './server.js';

export const DEFAULT_KNOBS: Knobs = {
  latencyMs: 0,
  failureRate: 0,
  failureKinds: [...RANDOM_FAULT_KINDS],
  hourlyQuota: Number.POSITIVE_INFINITY,
  sendMsPerInvoice: 1500,
  defaultPageSize: 100,
  maxPageSize: Number.POSITIVE_INFINITY,
  ignorePaging: false,
  hangMs: 120_000,
};

const nonNegative = (name: string, v: unknown, integer = false): number => {
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0 || (integer && Number.isFinite(v) && !Number.isInteger(v)))
    throw new Error(`${name}: must be a ${integer ? 'non-negative integer' : 'non-negative number'}`);
  return v;
};

/** Check a partial set of knobs; throws an Error naming the bad one. */
export function checkKnobs(k: Partial<Knobs>): Partial<Knobs> {
  const out: Partial<Knobs> = {};
  if (k.latencyMs !== undefined) out.latencyMs = nonNegative('latencyMs', k.latencyMs);
  if (k.failureRate !== undefined) {
    if (typeof k.failureRate !== 'number' || !(k.failureRate >= 0 && k.failureRate <= 1))
      throw new Error('failureRate: must be a number from 0 to 1');
    out.failureRate = k.failureRate;
  }
  if (k.failureKinds !== undefined) {
    if (!Array.isArray(k.failureKinds) || k.failureKinds.some((f) => !FAULT_KINDS.includes(f as FaultKind)))
      throw new Error(`failureKinds: must be a list of ${FAULT_KINDS.join(', ')}`);
    out.failureKinds = [...k.failureKinds];
  }
  if (k.hourlyQuota !== undefined) {
    if (k.hourlyQuota !== Number.POSITIVE_INFINITY) nonNegative('hourlyQuota', k.hourlyQuota, true);
    out.hourlyQuota = k.hourlyQuota;
  }
  if (k.sendMsPerInvoice !== undefined) out.sendMsPerInvoice = nonNegative('sendMsPerInvoice', k.sendMsPerInvoice);
  if (k.defaultPageSize !== undefined) {
    nonNegative('defaultPageSize', k.defaultPageSize, true);
    if (k.defaultPageSize < 1) throw new Error('defaultPageSize: must be at least 1');
    out.defaultPageSize = k.defaultPageSize;
  }
  if ((k.maxPageSize as unknown) === null) out.maxPageSize = Number.POSITIVE_INFINITY;
  else if (k.maxPageSize !== undefined) {
    if (k.maxPageSize !== Number.POSITIVE_INFINITY) nonNegative('maxPageSize', k.maxPageSize, true);
    if (k.maxPageSize < 1) throw new Error('maxPageSize: must be at least 1');
    out.maxPageSize = k.maxPageSize;
  }
  if (k.ignorePaging !== undefined) {
    const value = k.ignorePaging;
    if (typeof value !== 'boolean' && !(Array.isArray(value) && value.every((v) => typeof v === 'string')))
      throw new Error('ignorePaging: must be true, false or a list of list names (e.g. ["clients"])');
    out.ignorePaging = Array.isArray(value) ? [...value] : value;
  }
  if (k.hangMs !== undefined) out.hangMs = nonNegative('hangMs', k.hangMs);
  return out;
}
