/**
 * The service's enumerations (spec section 2, service-notes.md "Enumerations"), listed once: the
 * job payloads take them from here. The sandbox keeps its own lists on purpose: it simulates the
 * service independently of the client it tests.
 */
export const SEND_METHODS = ['email', 'mail', 'printcenter'] as const;
export const PAYMENT_METHODS = ['bank', 'autocollect'] as const;
export const COLLECT_TYPES = ['OOFF', 'FRST', 'RCUR'] as const;
export const TAX_TYPES = ['intax', 'extax'] as const;
export const DISCOUNT_TYPES = ['amount', 'percentage'] as const;
/** Invoice languages of a client; empty: the account's default. */
export const DOCUMENT_LANGUAGES = ['', 'nl', 'en', 'de', 'fr', 'es', 'it'] as const;
export const REPEAT_TYPES = ['auto', 'manual'] as const;
/** A sent quotation's custom status (`clear` removes it). */
export const QUOTATION_STATUSES = ['progress', 'completed', 'billable', 'declined', 'clear'] as const;

/** "a, b or c": a list as a message names it. */
export function either(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
