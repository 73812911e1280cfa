import { get } from '../api.ts';
import { formatDuration, formatMoney } from '../money.ts';
import { pagedTable } from '../paged-table.ts';
import type { Bill, Pagination, Payee, PayoutSummary, UnpaidItem } from '../types.ts';
import { h, replace, type Column } from '../ui.ts';
import type { ViewContext } from './context.ts';
import { payoutCards } from './payout-cards.ts';

/** Rows per page of the bill and unpaid-time tables. */
const PAGE_ROWS = 25;

/** The payouts view: the cards, the outstanding and overdue bills, the unpaid time. */
export async function renderPayouts(context: ViewContext): Promise<void> {
  const [summary, payees] = await Promise.all([
    get<PayoutSummary>('/team-payouts/summary'),
    payeeNames(context),
  ]);
  if (!context.current()) return;
  context.seen(summary.dataAsOf);
  const payeeName = (id: string) => payees.get(id) ?? id;

  const billColumns: Column<Bill>[] = [
    { key: 'number', label: 'Bill', text: (b) => b.number },
    { key: 'payee', label: 'Payee', text: (b) => payeeName(b.payeeId) },
    { key: 'dueDate', label: 'Due', text: (b) => b.dueDate ?? '–' },
    {
      key: 'remaining',
      label: 'Remaining',
      numeric: true,
      text: (b) => formatMoney(b.remaining, b.currency),
      raw: (b) => b.remaining,
    },
  ];
  const bills = (caption: string, testid: string, filter: Record<string, string>) =>
    pagedTable<Bill>({
      caption,
      path: '/team-payouts/bills',
      query: { ...filter, sort: 'dueDate' },
      columns: billColumns,
      testid,
      empty: 'No bills.',
      limit: PAGE_ROWS,
      seen: context.seen,
      failed: context.failed,
    });

  const unpaidHolder = h('div', {});
  const drawUnpaid = (scope: 'default' | 'all') =>
    replace(
      unpaidHolder,
      pagedTable<UnpaidItem>({
        caption: scope === 'all' ? 'Unpaid time, non-billable included' : 'Unpaid billable time',
        path: '/team-payouts/unpaid-time',
        query: { scope, sort: '-entryDate' },
        columns: unpaidColumns,
        testid: 'unpaid',
        empty: 'No unpaid time.',
        limit: PAGE_ROWS,
        seen: context.seen,
        failed: context.failed,
      }),
    );
  const scopeSwitch = h(
    'fieldset',
    { class: 'switch' },
    h('legend', {}, 'Which time'),
    ...(
      [
        ['default', 'Billable (default)'],
        ['all', 'All, non-billable included'],
      ] as const
    ).map(([value, label]) =>
      h(
        'label',
        {},
        h('input', {
          type: 'radio',
          name: 'scope',
          value,
          checked: value === 'default',
          'data-testid': `unpaid-scope-${value}`,
          onchange: () => drawUnpaid(value),
        }),
        label,
      ),
    ),
  );
  drawUnpaid('default');

  replace(
    context.main,
    h('h1', {}, 'Payouts'),
    h(
      'section',
      { 'aria-labelledby': 'cards-h' },
      h('h2', { id: 'cards-h' }, 'By currency'),
      payoutCards(summary.data),
    ),
    h(
      'section',
      { 'aria-labelledby': 'outstanding-h' },
      h('h2', { id: 'outstanding-h' }, 'Outstanding bills'),
      bills('Approved bills with an amount left to pay, by due date', 'bills-outstanding', {
        outstandingOnly: 'true',
      }),
    ),
    h(
      'section',
      { 'aria-labelledby': 'overdue-h' },
      h('h2', { id: 'overdue-h' }, 'Overdue bills'),
      bills('Bills past their due date with an amount left to pay', 'bills-overdue', {
        overdueOnly: 'true',
      }),
    ),
    h(
      'section',
      { 'aria-labelledby': 'unpaid-h' },
      h('h2', { id: 'unpaid-h' }, 'Unpaid time'),
      scopeSwitch,
      unpaidHolder,
    ),
  );
}

const unpaidColumns: Column<UnpaidItem>[] = [
  { key: 'workDate', label: 'Date', text: (i) => i.workDate },
  { key: 'name', label: 'Payee', text: (i) => i.name },
  { key: 'project', label: 'Project', text: (i) => i.projectName ?? '–' },
  { key: 'task', label: 'Task', text: (i) => i.taskName ?? '–' },
  {
    key: 'section',
    label: 'Section',
    text: (i) => (i.section === 'default' ? 'Billable' : 'Non-billable'),
  },
  { key: 'duration', label: 'Time', numeric: true, text: (i) => formatDuration(i.durationSeconds) },
  {
    key: 'hourlyRate',
    label: 'Rate',
    numeric: true,
    text: (i) => formatMoney(i.hourlyRate, i.currency),
    raw: (i) => i.hourlyRate,
  },
  {
    key: 'amount',
    label: 'Amount',
    numeric: true,
    text: (i) => formatMoney(i.amount, i.currency),
    raw: (i) => i.amount,
  },
];

/** Payee names by id, for the bill tables (a bill names its payee by id). */
async function payeeNames(context: ViewContext): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  let cursor: string | undefined;
  // A workspace has tens to hundreds of payees: a few pages at most.
  for (let page = 0; page < 20; page++) {
    const answer = await get<Payee[]>('/team-payouts/payees', { limit: 200, cursor });
    context.seen(answer.dataAsOf);
    for (const payee of answer.data) names.set(payee.id, payee.name);
    cursor = (answer.body.pagination as Pagination | undefined)?.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return names;
}
