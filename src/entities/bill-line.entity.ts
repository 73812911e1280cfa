import { BILL_LINE_KINDS } from '../value-sets.ts';
import {
  currency,
  date,
  decimal,
  defineEntity,
  filled,
  integer,
  json,
  money,
  oneOf,
  rate,
  text,
  uuid,
} from './entity.ts';

/**
 * A line of a team bill, over `team_bill_lines l JOIN team_bills b ON b.id = l.bill_id`. The
 * API answers it inside its bill, so the bill's id, number and currency and the line's position
 * are columns of the export only (a snapshot nests the line in its bill, which fills them); its
 * amounts are in the bill's currency.
 */
export const billLineEntity = defineEntity(
  'l',
  {
    id: uuid(),
    billId: uuid().only('export'),
    billNumber: text().from('b.number').only('export'),
    currency: currency().from('b.currency').only('export'),
    position: integer().only('export'),
    kind: oneOf(BILL_LINE_KINDS),
    description: text().nullable(),
    timeEntryId: uuid().nullable(),
    projectId: uuid().nullable(),
    taskId: uuid().nullable(),
    workDate: date().nullable(),
    durationSeconds: integer().nullable(),
    hourlyRate: rate().nullable(),
    amount: money(),
    quantity: decimal().nullable(),
    unitPrice: rate().nullable(),
    sourceSnapshot: json().nullable().only('api'),
    orgId: uuid().column('workspace_id').only('snapshot'),
  },
  [
    'id',
    filled('orgId'),
    filled('billId'),
    filled('position'),
    'kind',
    'timeEntryId',
    'projectId',
    'taskId',
    'workDate',
    'durationSeconds',
    'hourlyRate',
    'quantity',
    'unitPrice',
    'amount',
    'description',
    'sourceSnapshot',
  ],
);
