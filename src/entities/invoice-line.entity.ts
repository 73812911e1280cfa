import { INVOICE_LINE_KINDS } from '../value-sets.ts';
import {
  decimal,
  defineEntity,
  filled,
  integer,
  money,
  oneOf,
  rate,
  text,
  uuid,
} from './entity.ts';

/**
 * A line of an invoice, over `invoice_lines l`. The API does not answer lines; a snapshot nests
 * them in their invoice, which fills its id and their position. Its amounts are in the
 * invoice's currency.
 */
export const invoiceLineEntity = defineEntity(
  'l',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id').only('snapshot'),
    invoiceId: uuid().only('snapshot'),
    position: integer().only('snapshot'),
    kind: oneOf(INVOICE_LINE_KINDS),
    timeEntryId: uuid().nullable(),
    expenseId: uuid().nullable(),
    projectId: uuid().nullable(),
    description: text().nullable(),
    subtitle: text().nullable(),
    detail: text().nullable(),
    groupLabel: text().nullable(),
    quantity: decimal().nullable(),
    unitPrice: rate(null).nullable(),
    amount: money(null),
  },
  [
    'id',
    filled('orgId'),
    filled('invoiceId'),
    filled('position'),
    'kind',
    'timeEntryId',
    'expenseId',
    'projectId',
    'description',
    'subtitle',
    'detail',
    'groupLabel',
    'quantity',
    'unitPrice',
    'amount',
  ],
);
