import { formatDuration, formatMoney, isZero } from '../money.ts';
import type { PayoutSummary } from '../types.ts';
import { card, h, notice } from '../ui.ts';

const FIGURES = [
  ['accrued', 'Accrued'],
  ['approved', 'Approved'],
  ['paid', 'Paid'],
  ['outstanding', 'Outstanding'],
  ['overdue', 'Overdue'],
  ['credit', 'Credit'],
] as const;

/** The payout summary as cards: one group per currency, then the last payment and the gaps. */
export function payoutCards(summary: PayoutSummary): HTMLElement {
  const groups = summary.currencies.map((c) =>
    h(
      'section',
      { class: 'currency-group', 'data-testid': `payouts-${c.currency}`, 'aria-label': c.currency },
      h('h3', {}, c.currency),
      h(
        'dl',
        { class: 'cards' },
        ...FIGURES.map(([key, label]) =>
          card(label, formatMoney(c[key], c.currency), {
            raw: c[key],
            testid: `payout-${c.currency}-${key}`,
            tone: key === 'overdue' && !isZero(c.overdue) ? 'alert' : undefined,
          }),
        ),
      ),
      h(
        'p',
        { class: 'help' },
        `${formatDuration(c.eligibleSeconds)} of unpaid work`,
        c.unbilledFrom ? `, ${c.unbilledFrom} to ${c.unbilledTo}` : '',
      ),
    ),
  );
  const last =
    summary.lastPaymentAmount && summary.lastPaymentCurrency
      ? `${formatMoney(summary.lastPaymentAmount, summary.lastPaymentCurrency)} on ${summary.lastPaymentDate}`
      : 'none yet';
  return h(
    'div',
    { class: 'payout-cards' },
    summary.currencies.length
      ? h('div', { class: 'currency-groups' }, ...groups)
      : notice('info', 'payouts-empty', 'Nothing is owed or paid yet.'),
    h(
      'dl',
      { class: 'cards small' },
      card('Last payment', last, {
        raw: summary.lastPaymentAmount ?? undefined,
        testid: 'payout-last-payment',
      }),
      card('Payees', String(summary.memberCount), { testid: 'payout-member-count' }),
      card('Missing pay rates', String(summary.missingRateCount), {
        raw: String(summary.missingRateCount),
        testid: 'payout-missing-rates',
        tone: summary.missingRateCount > 0 ? 'warn' : undefined,
      }),
    ),
    summary.missingRateCount > 0
      ? notice(
          'warning',
          'payout-missing-rates-warning',
          `${summary.missingRateCount} payee${summary.missingRateCount === 1 ? ' has' : 's have'} time without a pay rate at its date: that time is not in the accrued figures.`,
        )
      : null,
  );
}
