import { get } from '../api.ts';
import type { Profitability, PayoutSummary } from '../types.ts';
import { h, replace } from '../ui.ts';
import type { ViewContext } from './context.ts';
import { payoutCards } from './payout-cards.ts';
import { summaryCards, warnings } from './profit-parts.ts';

/**
 * The first view after sign-in: the payout cards and this month's profitability (the API's
 * default range: the workspace's current month), the rest one click away.
 */
export async function renderOverview(context: ViewContext): Promise<void> {
  const [summary, report] = await Promise.all([
    get<PayoutSummary>('/team-payouts/summary'),
    get<Profitability>('/team-payouts/profitability', { perPage: 1 }),
  ]);
  if (!context.current()) return;
  context.seen(summary.dataAsOf);
  context.seen(report.dataAsOf);
  const p = report.data;
  replace(
    context.main,
    h('h1', {}, 'Overview'),
    h(
      'section',
      { 'aria-labelledby': 'payouts-h' },
      h('h2', { id: 'payouts-h' }, 'Payouts'),
      payoutCards(summary.data),
      h('p', {}, h('a', { href: '#/payouts' }, 'Bills, unpaid time and the rest of payouts')),
    ),
    h(
      'section',
      {
        'aria-labelledby': 'month-h',
        'data-testid': 'overview-profitability',
        'data-from': p.from,
        'data-to': p.to,
      },
      h(
        'h2',
        { id: 'month-h' },
        `Profitability this month (${p.from} to ${p.to}, ${p.baseCurrency})`,
      ),
      summaryCards(p, 'overview-summary'),
      warnings(p),
      h('p', {}, h('a', { href: '#/profitability' }, 'Members, projects and other ranges')),
    ),
  );
  performance.mark('ledgerline:drawn');
}
