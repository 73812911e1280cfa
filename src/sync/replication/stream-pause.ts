import type { LogicalReplicationService } from 'pg-logical-replication';

/**
 * Pauses (or resumes) reading the replication connection's socket, so that a long queue of
 * received changes stops growing: TCP then holds the walsender back. pg-logical-replication
 * (2.5) offers no public way to do this (docs/decisions.md, "Backpressure on the replication
 * stream"), so this is the one place that reaches into it: its connection's socket, which
 * the library's own flow control pauses the same way. Without that field it does nothing.
 */
export function pauseStream(stream: LogicalReplicationService | undefined, pause: boolean): void {
  const socket = (stream as unknown as { _connection?: { stream?: Partial<PausableSocket> } })
    ?._connection?.stream;
  if (pause) socket?.pause?.();
  else socket?.resume?.();
}

interface PausableSocket {
  pause(): void;
  resume(): void;
}
