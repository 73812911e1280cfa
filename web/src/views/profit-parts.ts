import { formatMoney, formatPercent, isZero } from '../money.ts';
import type { Metric, MetricsRow, Profitability } from '../types.ts';
import { card, h, notice, table, type Column } from '../ui.ts';

export const METRIC_LABELS: Record<Metric, string> = {
  billedNet: 'Billed',
  collectedNet: 'Collected',
  compensationCost: 'Compensation cost',
  approvedCost: 'Approved cost',
  estimatedCost: 'Estimated cost',
  paid: 'Paid',
  pending: 'Pending',
  margin: 'Margin',
};

/** The figures a card or a row shows, in this order. */
export const SHOWN: Metric[] = ['billedNet', 'collectedNet', 'compensationCost', 'margin'];

/** The report's summary row as cards, in the base currency. */
export function summaryCards(report: Profitability, testid: string): HTMLElement {
  const s = report.summary;
  return h(
    'dl',
    { class: 'cards', 'data-testid': testid },
    ...SHOWN.map((metric) =>
      card(METRIC_LABELS[metric], formatMoney(s[metric], report.baseCurrency), {
        raw: s[metric],
        testid: `summary-${metric}`,
        tone: metric === 'margin' && s.margin.startsWith('-') ? 'alert' : undefined,
      }),
    ),
    card('Margin %', formatPercent(s.marginPercent), {
      raw: s.marginPercent ?? undefined,
      testid: 'summary-marginPercent',
    }),
  );
}

/**
 * What the figures leave out, said plainly: amounts without an FX rate to the base currency
 * (with the amounts), members with time but no pay rate.
 */
export function warnings(report: Profitability): HTMLElement | null {
  const items: HTMLElement[] = [];
  for (const m of report.missingFx)
    items.push(
      h(
        'li',
        { 'data-testid': 'warning-missing-fx' },
        `No ${m.fromCurrency} → ${m.toCurrency} rate: ${formatMoney(m.amount, m.fromCurrency)} of ${METRIC_LABELS[m.metric].toLowerCase()} is left out of the ${m.toCurrency} figures.`,
      ),
    );
  if (report.missingRateCount > 0)
    items.push(
      h(
        'li',
        { 'data-testid': 'warning-missing-rates' },
        `${report.missingRateCount} member${report.missingRateCount === 1 ? ' has' : 's have'} time without a pay rate: their compensation cost and margin are incomplete.`,
      ),
    );
  if (items.length === 0) return null;
  return notice(
    'warning',
    'profitability-warnings',
    h('h2', {}, 'What these figures leave out'),
    h('ul', {}, ...items),
  );
}

/** The amounts of a row in their own currencies, as text: "Billed 1.000,00 $; Paid 20 ¥". */
export function nativeText(row: MetricsRow): string {
  return row.nativeAmounts
    .filter((n) => !isZero(n.amount))
    .map((n) => `${METRIC_LABELS[n.metric]} ${formatMoney(n.amount, n.currency)}`)
    .join('; ');
}

/** Flags of a row: what its figures miss. */
export function rowFlags(row: MetricsRow): string {
  return [row.missingFx ? 'missing FX rate' : '', row.missingPayRate ? 'missing pay rate' : '']
    .filter(Boolean)
    .join(', ');
}

/** Columns of a metrics row (member or project) in the base currency. */
export function metricColumns(currency: string): Column<MetricsRow>[] {
  return [
    ...SHOWN.map((metric): Column<MetricsRow> => ({
      key: metric,
      label: METRIC_LABELS[metric],
      numeric: true,
      text: (r) => formatMoney(r[metric], currency),
      raw: (r) => r[metric],
    })),
    {
      key: 'marginPercent',
      label: 'Margin %',
      numeric: true,
      text: (r) => formatPercent(r.marginPercent),
      raw: (r) => r.marginPercent,
    },
    { key: 'native', label: 'In their currencies', text: nativeText },
    { key: 'flags', label: 'Missing', text: rowFlags },
  ];
}

/** Revenue not yet set against work, and receipts not matched to invoices, per currency. */
export function looseMoney(report: Profitability): HTMLElement {
  type Amount = { currency: string; amount: string };
  const columns: Column<Amount>[] = [
    { key: 'currency', label: 'Currency', text: (r) => r.currency },
    {
      key: 'amount',
      label: 'Amount',
      numeric: true,
      text: (r) => formatMoney(r.amount, r.currency),
      raw: (r) => r.amount,
    },
  ];
  return h(
    'div',
    { class: 'two' },
    table('Unallocated revenue', columns, report.unallocatedRevenue, {
      testid: 'unallocated-revenue',
      empty: 'None.',
    }),
    table('Unreconciled receipts', columns, report.unreconciledReceipts, {
      testid: 'unreconciled-receipts',
      empty: 'None.',
    }),
  );
}
