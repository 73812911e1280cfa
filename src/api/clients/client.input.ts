import { z } from 'zod';
import { isKnownCurrency } from '../../money/currencies.ts';
import { decimalInput, optionalText, parseBody, requiredText } from '../write-body.ts';

const email = optionalText(320).pipe(z.email({ error: 'must be an email address' }).nullable());

const currency = optionalText(3)
  .transform((v) => v?.trim().toUpperCase() ?? null)
  .refine((v) => v === null || isKnownCurrency(v), 'must be an ISO 4217 currency code');

const nonNegativeRate = decimalInput({ numbers: true })
  .refine((v) => !v.startsWith('-'), 'must not be negative')
  .nullable();

/**
 * A client's writable fields (docs/contract.md, "Client writes"): `name` required on create and
 * update, every other field optional; empty strings become null; money as a decimal string or
 * a JSON number, at most four decimals; currency upper-cased.
 */
export const clientInput = z.object({
  name: requiredText(200),
  contactName: optionalText(200).optional(),
  email: email.optional(),
  phone: optionalText(100).optional(),
  website: optionalText(500).optional(),
  notes: optionalText(10_000).optional(),
  taxNumber: optionalText(100).optional(),
  billingEmail: email.optional(),
  currency: currency.optional(),
  billingAddress: optionalText(1000).optional(),
  billingLine1: optionalText(200).optional(),
  billingLine2: optionalText(200).optional(),
  billingCity: optionalText(200).optional(),
  billingRegion: optionalText(200).optional(),
  billingPostalCode: optionalText(50).optional(),
  billingCountry: optionalText(100).optional(),
  defaultRate: nonNegativeRate.optional(),
  defaultTaxRate: nonNegativeRate.optional(),
  defaultPaymentTerms: optionalText(200).optional(),
  requirePoNumber: z.boolean({ error: 'must be true or false' }).optional(),
});
export type ClientInput = z.output<typeof clientInput>;

export const parseClientInput = (body: unknown): ClientInput => parseBody(clientInput, body);
