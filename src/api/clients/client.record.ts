import { z } from 'zod';
import { bool, decimal, rate, text, timestamp } from '../record-values.ts';
import { timestamps } from '../schema-parts.ts';
import { currencyCode, decimalText, moneyText, uuid } from '../../value-schemas.ts';

/** A client as the API answers it (api-v1 "Client"). */
export const clientRecord = z.object({
  id: uuid,
  orgId: uuid,
  name: z.string(),
  contactName: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
  notes: z.string().nullable(),
  taxNumber: z.string().nullable(),
  billingEmail: z.string().nullable(),
  currency: currencyCode.nullable(),
  billingAddress: z.string().nullable(),
  billingLine1: z.string().nullable(),
  billingLine2: z.string().nullable(),
  billingCity: z.string().nullable(),
  billingRegion: z.string().nullable(),
  billingPostalCode: z.string().nullable(),
  billingCountry: z.string().nullable(),
  defaultRate: moneyText.nullable(),
  defaultTaxRate: decimalText.nullable(),
  defaultPaymentTerms: z.string().nullable(),
  requirePoNumber: z.boolean(),
  ...timestamps,
});
export type ClientRecord = z.infer<typeof clientRecord>;

/** Columns a client row carries, in both stores (DECIMAL cast to text in DuckDB). */
export const CLIENT_COLUMNS = `r.id, r.workspace_id, r.name, r.contact_name, r.email, r.phone,
  r.website, r.notes, r.tax_number, r.billing_email, r.currency, r.billing_address,
  r.billing_line1, r.billing_line2, r.billing_city, r.billing_region, r.billing_postal_code,
  r.billing_country, CAST(r.default_rate AS VARCHAR) AS default_rate,
  CAST(r.default_tax_rate AS VARCHAR) AS default_tax_rate, r.default_payment_terms,
  r.require_po_number, r.created_at, r.updated_at, r.deleted_at`;

/**
 * A client row to its record. `baseCurrency` (the workspace's) gives the rate's scale when
 * the client has no currency of its own.
 */
export function clientRowToRecord(
  row: Record<string, unknown>,
  baseCurrency: string,
): ClientRecord {
  const currency = text(row.currency);
  return {
    id: text(row.id)!,
    orgId: text(row.workspace_id)!,
    name: text(row.name)!,
    contactName: text(row.contact_name),
    email: text(row.email),
    phone: text(row.phone),
    website: text(row.website),
    notes: text(row.notes),
    taxNumber: text(row.tax_number),
    billingEmail: text(row.billing_email),
    currency,
    billingAddress: text(row.billing_address),
    billingLine1: text(row.billing_line1),
    billingLine2: text(row.billing_line2),
    billingCity: text(row.billing_city),
    billingRegion: text(row.billing_region),
    billingPostalCode: text(row.billing_postal_code),
    billingCountry: text(row.billing_country),
    defaultRate: rate(row.default_rate, currency ?? baseCurrency),
    defaultTaxRate: decimal(row.default_tax_rate),
    defaultPaymentTerms: text(row.default_payment_terms),
    requirePoNumber: bool(row.require_po_number),
    createdAt: timestamp(row.created_at)!,
    updatedAt: timestamp(row.updated_at)!,
    deletedAt: timestamp(row.deleted_at),
  };
}
