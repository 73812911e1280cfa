import { currency, date, defineEntity, filled, integer, money, text, uuid } from './entity.ts';

/**
 * A payment's allocation to a bill, over `team_payment_allocations a JOIN team_bills b ON b.id =
 * a.bill_id` (and, for the export, `JOIN team_payments r ON r.id = a.payment_id`). The API
 * answers it inside its payment, so the payment's id, date and status and the allocation's
 * position are columns of the export only. Its amount is in the bill's currency, its cash
 * amount in the currency the cash moved in. A snapshot nests it in its payment.
 */
export const allocationEntity = defineEntity(
  'a',
  {
    paymentId: uuid().only('export'),
    billId: uuid(),
    number: text().from('b.number'),
    position: integer().only('export'),
    paidDate: date().from('r.paid_date').only('export'),
    paymentStatus: text().from('r.status').only('export'),
    currency: currency().from('b.currency'),
    amount: money(),
    cashAmount: money('cashCurrency').nullable(),
    cashCurrency: currency().nullable(),
    orgId: uuid().column('workspace_id').only('snapshot'),
  },
  [
    filled('orgId'),
    filled('paymentId'),
    'billId',
    filled('position'),
    'amount',
    'cashAmount',
    'cashCurrency',
  ],
);
