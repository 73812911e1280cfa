/**
 * Named places where the sync can be made to crash, for the crash tests: with
 * LEDGERLINE_CRASH_AT=<name> in its environment, a process kills itself (SIGKILL: no
 * cleanup, no flush) the first time it reaches that place. Unset, this is one string compare.
 */
export type FaultPoint =
  | 'initial-load:mid-copy'
  | 'initial-load:mid-apply'
  | 'initial-load:before-summaries'
  | 'batch:before-write'
  | 'batch:before-commit'
  | 'batch:before-ack'
  | 'batch:after-ack'
  | 'webhooks:before-outbox'
  | 'webhooks:before-ack'
  | 'webhooks:mid-delivery';

export function faultPoint(name: FaultPoint): void {
  if (process.env.LEDGERLINE_CRASH_AT === name) process.kill(process.pid, 'SIGKILL');
}
