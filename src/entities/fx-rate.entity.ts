import { snapshotDecimal } from '../value-schemas.ts';
import { audit, currency, date, decimal, defineEntity, filled, uuid } from './entity.ts';

/** An exchange rate from a day on, over `fx_rates r`; a snapshot gives it, the API does not. */
export const fxRateEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id').only('snapshot'),
    fromCurrency: currency(),
    toCurrency: currency(),
    effectiveFrom: date(),
    rate: decimal().inSnapshot(
      snapshotDecimal(10).refine(
        (r) => !r.startsWith('-') && !/^0*(\.0*)?$/.test(r),
        'must be positive',
      ),
    ),
    ...audit,
  },
  [
    'id',
    filled('orgId'),
    'fromCurrency',
    'toCurrency',
    'effectiveFrom',
    'rate',
    'createdAt',
    'updatedAt',
    'deletedAt',
  ],
);
