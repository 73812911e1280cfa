import { dec, formatMoney, formatRate, roundMoney } from './reference-money.ts';
import type { SnapshotInput } from './reference-snapshot.ts';
import { unbilledWork } from './pay-rates.ts';

export type UnpaidSection = 'default' | 'non_billable';

/** An API "Team unpaid-time item" without `links`. */
export interface UnpaidTimeItem {
  id: string;
  timeEntryId: string;
  payeeId: string;
  userId: string;
  projectId: string;
  rateId: string;
  name: string;
  projectName: string | null;
  taskId: string | null;
  taskName: string | null;
  description: string | null;
  currency: string;
  workDate: string;
  durationSeconds: number;
  hourlyRate: string;
  amount: string;
  section: UnpaidSection;
  selectedByDefault: boolean;
}

export interface UnpaidTimeQuery {
  /** `default`: billable work only; `all` adds the `non_billable` section. */
  scope: 'default' | 'all';
  /** Only items in this (rate) currency. */
  currency?: string;
}

/**
 * docs/contract.md, "Unpaid-time item": one item per unbilled, priced time entry of a payee.
 * amount = durationSeconds x hourlyRate / 3600, rounded half away from zero to the rate
 * currency. Sorted by timeEntryId (the API's -createdAt order needs timestamps a snapshot
 * may not have).
 */
export function unpaidTimeItems(snapshot: SnapshotInput, query: UnpaidTimeQuery): UnpaidTimeItem[] {
  const projects = new Map((snapshot.projects ?? []).map((p) => [p.id, p.name]));
  const tasks = new Map((snapshot.tasks ?? []).map((t) => [t.id, t.name]));
  const items: UnpaidTimeItem[] = [];
  for (const { entry, payee, rate } of unbilledWork(snapshot)) {
    if (rate === undefined) continue;
    const billable = entry.billable ?? true;
    if (query.scope === 'default' && !billable) continue;
    if (query.currency !== undefined && rate.currency !== query.currency) continue;
    const taskId = entry.taskId ?? null;
    const amount = roundMoney(
      dec(rate.hourlyRate).times(entry.durationSeconds).dividedBy(3600),
      rate.currency,
    );
    items.push({
      id: entry.id,
      timeEntryId: entry.id,
      payeeId: payee.id,
      userId: entry.userId,
      projectId: entry.projectId,
      rateId: rate.id,
      name: payee.name,
      projectName: projects.get(entry.projectId) ?? null,
      taskId,
      taskName: taskId === null ? null : (tasks.get(taskId) ?? null),
      // The importer stores an empty note as null.
      description: entry.note === undefined || entry.note === '' ? null : entry.note,
      currency: rate.currency,
      workDate: entry.entryDate,
      durationSeconds: entry.durationSeconds,
      hourlyRate: formatRate(rate.hourlyRate, rate.currency),
      amount: formatMoney(amount, rate.currency),
      section: billable ? 'default' : 'non_billable',
      selectedByDefault: billable,
    });
  }
  return items;
}
