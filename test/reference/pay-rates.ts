import { compareText, isLive } from './reference-snapshot.ts';
import type {
  PayeeInput,
  PayRateInput,
  SnapshotInput,
  TimeEntryInput,
} from './reference-snapshot.ts';

/** Each user's payee; a deleted payee is no payee (its rates and credits no longer apply). */
export function livePayeesByUser(snapshot: SnapshotInput): Map<string, PayeeInput> {
  const byUser = new Map<string, PayeeInput>();
  for (const payee of snapshot.payees ?? []) {
    if (isLive(payee)) byUser.set(payee.userId, payee);
  }
  return byUser;
}

/** True when the payee's start date allows work dated `date` (no start date: any date). */
export function isOnOrAfterStart(payee: PayeeInput, date: string): boolean {
  return payee.startDate === undefined || payee.startDate === null || date >= payee.startDate;
}

/**
 * The pay rate for work dated `date`: the payee rate with the latest `effectiveFrom` <= date
 * (the importer forbids two rates of one payee on one day; were there a tie, the greatest id
 * wins). Before the payee's start date there is no rate.
 */
export function payRateAt(payee: PayeeInput, date: string): PayRateInput | undefined {
  if (!isOnOrAfterStart(payee, date)) return undefined;
  let best: PayRateInput | undefined;
  for (const rate of payee.rates ?? []) {
    if (rate.effectiveFrom > date) continue;
    if (
      best === undefined ||
      rate.effectiveFrom > best.effectiveFrom ||
      (rate.effectiveFrom === best.effectiveFrom && compareText(rate.id, best.id) > 0)
    ) {
      best = rate;
    }
  }
  return best;
}

/** Ids of the time entries on a line (of any kind) of a live APPROVED bill. */
export function entriesOnApprovedBills(snapshot: SnapshotInput): Set<string> {
  const ids = new Set<string>();
  for (const bill of snapshot.bills ?? []) {
    if (bill.status !== 'APPROVED' || !isLive(bill)) continue;
    for (const line of bill.lines ?? []) {
      if (line.timeEntryId) ids.add(line.timeEntryId);
    }
  }
  return ids;
}

/**
 * An entry that is owed to its payee unless it lacks a rate (docs/contract.md, "Unpaid-time item").
 */
export interface UnbilledWork {
  entry: TimeEntryInput;
  payee: PayeeInput;
  rate: PayRateInput | undefined;
}

/**
 * Every time entry of a live payee that is not running, not deleted, lasts > 0 s, is dated
 * on/after the payee's start date and is on no APPROVED bill: with its pay rate, if any.
 * Billable or not. Sorted by entry id.
 */
export function unbilledWork(snapshot: SnapshotInput): UnbilledWork[] {
  const payees = livePayeesByUser(snapshot);
  const approved = entriesOnApprovedBills(snapshot);
  const work: UnbilledWork[] = [];
  for (const entry of snapshot.timeEntries ?? []) {
    const payee = payees.get(entry.userId);
    if (payee === undefined || !isLive(entry) || entry.isRunning === true) continue;
    if (entry.durationSeconds <= 0 || !isOnOrAfterStart(payee, entry.entryDate)) continue;
    if (approved.has(entry.id)) continue;
    work.push({ entry, payee, rate: payRateAt(payee, entry.entryDate) });
  }
  return work.sort((a, b) => compareText(a.entry.id, b.entry.id));
}
