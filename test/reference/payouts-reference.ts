/**
 * A reference implementation of every team-payout figure (bills, unpaid time, the payout
 * summary and profitability), written from docs/contract.md alone as an oracle for differential
 * tests against the DuckDB views. It shares no code with src/. The choices it makes where
 * the spec is open are listed in README.md beside this file.
 */
export { billFigures, type BillFigures } from './bill-figures.ts';
export { unpaidTimeItems, type UnpaidTimeItem, type UnpaidTimeQuery } from './unpaid-time.ts';
export { payoutSummary, type PayoutSummary, type PayoutSummaryQuery } from './payout-summary.ts';
export {
  profitability,
  type MemberRow,
  type MetricsRow,
  type Profitability,
  type ProfitabilityQuery,
} from './profitability.ts';
export type { SnapshotInput } from './reference-snapshot.ts';
