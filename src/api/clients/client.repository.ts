import { randomUUID } from 'node:crypto';
import type { Transaction, Updateable } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { ClientTable } from '../../store/record-tables.ts';
import type { ClientInput } from './client.input.ts';

type ClientColumns = Omit<
  Updateable<ClientTable>,
  'id' | 'workspace_id' | 'created_at' | 'deleted_at'
>;

/** The columns an input sets: only the fields it carries (an update leaves the rest). */
function clientColumns(input: ClientInput): ClientColumns & { name: string } {
  const columns: ClientColumns = {};
  const set = <K extends keyof ClientColumns>(column: K, value: ClientColumns[K] | undefined) => {
    if (value !== undefined) columns[column] = value;
  };
  set('contact_name', input.contactName);
  set('email', input.email);
  set('phone', input.phone);
  set('website', input.website);
  set('notes', input.notes);
  set('tax_number', input.taxNumber);
  set('billing_email', input.billingEmail);
  set('currency', input.currency);
  set('billing_address', input.billingAddress);
  set('billing_line1', input.billingLine1);
  set('billing_line2', input.billingLine2);
  set('billing_city', input.billingCity);
  set('billing_region', input.billingRegion);
  set('billing_postal_code', input.billingPostalCode);
  set('billing_country', input.billingCountry);
  set('default_rate', input.defaultRate);
  set('default_tax_rate', input.defaultTaxRate);
  set('default_payment_terms', input.defaultPaymentTerms);
  set('require_po_number', input.requirePoNumber);
  return { ...columns, name: input.name };
}

export async function insertClient(
  trx: Transaction<Database>,
  workspaceId: string,
  input: ClientInput,
): Promise<Record<string, unknown>> {
  return trx
    .insertInto('clients')
    .values({ id: randomUUID(), workspace_id: workspaceId, ...clientColumns(input) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Updates the client `id` (found by lockedRecord, src/api/locked-row.ts) with the fields `input` carries. */
export async function updateClient(
  trx: Transaction<Database>,
  id: string,
  input: ClientInput,
): Promise<Record<string, unknown>> {
  return trx
    .updateTable('clients')
    .set({ ...clientColumns(input), updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
