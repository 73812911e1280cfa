import { audit, boolean, currency, decimal, defineEntity, rate, text, uuid } from './entity.ts';

/**
 * A client (api-v1 "Client"), over `clients r`. Its default rate is in its own currency, or
 * the workspace's when it has none (the row context's default currency).
 */
export const clientEntity = defineEntity('r', {
  id: uuid(),
  orgId: uuid().column('workspace_id'),
  name: text(),
  contactName: text().nullable(),
  email: text().nullable(),
  phone: text().nullable(),
  website: text().nullable(),
  notes: text().nullable(),
  taxNumber: text().nullable(),
  billingEmail: text().nullable(),
  currency: currency().nullable(),
  billingAddress: text().nullable(),
  billingLine1: text().nullable(),
  billingLine2: text().nullable(),
  billingCity: text().nullable(),
  billingRegion: text().nullable(),
  billingPostalCode: text().nullable(),
  billingCountry: text().nullable(),
  defaultRate: rate().nullable(),
  defaultTaxRate: decimal().nullable(),
  defaultPaymentTerms: text().nullable(),
  requirePoNumber: boolean(),
  ...audit,
});
