/**
 * The seller file (`--seller FILE`): what the service does not hold about the administration
 * itself, as JSON, checked with one-line errors that name the field.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import type { Seller } from './model.js';

const text = z.string().trim().min(1);
const SELLER = z.strictObject({
  name: text,
  vatNumber: z
    .string()
    .transform((value) => value.replaceAll(/[\s.]/g, '').toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{2}[0-9A-Z]{2,13}$/, 'a VAT number with its country prefix, e.g. NL001234567B01')),
  country: z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166 code of two capitals, e.g. NL'),
  kvk: text.optional(),
  address: z
    .strictObject({
      street: text.optional(),
      postalCode: text.optional(),
      city: text.optional(),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/)
        .optional(),
    })
    .default({}),
  iban: text.optional(),
  email: text.optional(),
  endpoint: z.strictObject({ scheme: z.string().regex(/^\d{4}$/, 'an EAS code of four digits'), id: text }).optional(),
});

export const SELLER_EXAMPLE =
  '{"name": "Bakkerij Jansen B.V.", "vatNumber": "NL001234567B01", "country": "NL", "kvk": "12345678", "address": {"street": "Weena 100", "postalCode": "3012 CM", "city": "Rotterdam"}, "iban": "NL91ABNA0417164300"}';

/** The seller file `file`; `label` names where it was given (`--seller FILE` by default) in the one-line errors. */
export function readSeller(file: string, label = `--seller ${file}`): Seller {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`${label}: ${reason}; it holds the administration's details as JSON, e.g. ${SELLER_EXAMPLE}`);
  }
  const parsed = SELLER.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${label}: ${issue.path.join('.') || 'the file'}: ${issue.message}`);
  }
  return parsed.data;
}

/** The seller file of an account in the EXPORT_SELLERS directory: `DIR/NAME.json`. */
export function sellerFileOf(directory: string, accountName: string): string {
  return join(directory, `${accountName}.json`);
}

/**
 * The seller of an account: the `--seller` file when given, else the account's file in the
 * EXPORT_SELLERS directory; with neither, a UsageError saying how to give one.
 */
export function accountSeller(given: Seller | undefined, directory: string | undefined, accountName: string): Seller {
  if (given) return given;
  if (!directory)
    throw new UsageError(
      `give --seller FILE (the administration's details as JSON, e.g. ${SELLER_EXAMPLE}), or set EXPORT_SELLERS to a directory holding ${accountName}.json`,
    );
  const file = sellerFileOf(directory, accountName);
  return readSeller(file, `EXPORT_SELLERS: ${file} (the seller file of account ${accountName})`);
}
