import type pg from 'pg';
import { LogicalReplicationService } from 'pg-logical-replication';
import { faultPoint } from '../sync/fault-points.ts';
import { formatLsn } from '../sync/lsn.ts';
import { RawPgoutputPlugin } from '../sync/replication/raw-pgoutput-plugin.ts';
import { PUBLICATION } from '../sync/replication/slot.ts';
import { ChangeReader, type Row, type RowChange } from './change-reader.ts';
import { eventsOf, type PendingEvent, type WebhookRecordSource } from './events.ts';

/**
 * The one slot of a store the events are produced from; streaming it is the producer's lock.
 * Slot names are the cluster's, not a database's: the database's oid keeps two stores of one
 * PostgreSQL apart (`ledgerline_webhooks_<oid>`).
 */
export async function producerSlotName(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ oid: string }>(
    'SELECT oid::text FROM pg_database WHERE datname = current_database()',
  );
  return `ledgerline_webhooks_${rows[0]!.oid}`;
}

export interface ProducerOptions {
  pool: pg.Pool;
  /** Connection string of the store, for the replication connection. */
  url: string;
  sources: readonly WebhookRecordSource[];
  log?: (line: string) => void;
  /** How long a node waits before it tries the slot again (another node streams it: 5 s). */
  retryMs?: number;
  /** Told when events were written, so a sender in this process looks at once. */
  onProduced?: (count: number) => void;
}

/**
 * Produces the webhook events (docs/webhooks.md, "The producer"). Every node runs one; the
 * one that streams the store's slot `ledgerline_webhooks_<oid>` produces, since PostgreSQL lets one
 * connection stream a slot at a time; the others try again every `retryMs` and take over when
 * its connection ends. For each committed transaction it writes the events and their
 * deliveries in one transaction of the store, and only then confirms the transaction's end
 * to the slot: a crash anywhere makes the stream send it again, and the events' derived ids
 * make that write the same rows.
 */
export class WebhookProducer {
  readonly metrics = { producing: false, produced: 0 };
  private readonly sources: Map<string, WebhookRecordSource>;
  private stream: LogicalReplicationService | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly currencies = new Map<string, string>();

  constructor(private readonly options: ProducerOptions) {
    this.sources = new Map(options.sources.map((s) => [s.table, s]));
  }

  start(): void {
    this.stopped = false;
    void this.attempt();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.stream?.stop().catch(() => undefined);
    await this.chain.catch(() => undefined);
    this.metrics.producing = false;
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.subscribe(await this.ensureSlot());
    } catch (error) {
      this.metrics.producing = false;
      const code = (error as { code?: string }).code;
      // 55006: the slot is streamed by another node, which is the producer.
      if (code !== '55006')
        this.options.log?.(
          `webhooks: producer: ${error instanceof Error ? error.message : String(error)}`,
        );
      if (!this.stopped)
        this.timer = setTimeout(() => void this.attempt(), this.options.retryMs ?? 5000);
    }
  }

  private async ensureSlot(): Promise<string> {
    const slot = await producerSlotName(this.options.pool);
    const { rowCount } = await this.options.pool.query(
      'SELECT 1 FROM pg_replication_slots WHERE slot_name = $1',
      [slot],
    );
    if (rowCount) return slot;
    await this.options.pool
      .query("SELECT pg_create_logical_replication_slot($1, 'pgoutput')", [slot])
      .catch((error: { code?: string }) => {
        // 42710: another node made it meanwhile.
        if (error.code !== '42710') throw error;
      });
    return slot;
  }

  private subscribe(slot: string): Promise<void> {
    const stream = new LogicalReplicationService(
      { connectionString: this.options.url, options: '-c TimeZone=UTC -c DateStyle=ISO,YMD' },
      { acknowledge: { auto: false, timeoutSeconds: 0 }, flowControl: { enabled: false } },
    );
    this.stream = stream;
    const reader = new ChangeReader();
    let changes: RowChange[] = [];
    let confirmed = 0n;
    const confirm = (position: bigint, ping: boolean) =>
      position > 0n
        ? stream.acknowledge(formatLsn(position - 1n), ping).catch(() => undefined)
        : undefined;
    stream.on('data', (_lsn: string, message: Buffer) => {
      const read = reader.read(message);
      if (read.tag === 'begin') changes = [];
      else if (read.tag === 'change') changes.push(read.change);
      else if (read.tag === 'commit') {
        const transaction = changes;
        changes = [];
        this.chain = this.chain.then(async () => {
          await this.produce(transaction, read.endLsn, read.commitTime);
          faultPoint('webhooks:before-ack');
          confirmed = read.endLsn;
          await confirm(confirmed, false);
        });
        this.chain.catch((error: unknown) => {
          // The stream is abandoned and opened again from the last confirmed position.
          this.options.log?.(
            `webhooks: producer: ${error instanceof Error ? error.message : String(error)}`,
          );
          void stream.stop();
        });
      }
    });
    stream.on('heartbeat', (_lsn: string, _time: number, reply: boolean) => {
      if (reply) void this.chain.then(() => confirm(confirmed, true));
    });
    stream.on('error', () => undefined);
    // Producing once the server has started streaming the slot to this connection, not before:
    // a node refused it (another streams it) never counts as producing.
    stream.once('start', () => {
      this.metrics.producing = true;
      this.options.log?.('webhooks: producing events from the store');
    });
    return stream.subscribe(new RawPgoutputPlugin({ publicationNames: [PUBLICATION] }), slot).then(
      () => {
        throw new Error('the producer stream ended');
      },
      (error: unknown) => {
        throw error;
      },
    );
  }

  /** Writes a transaction's events and their deliveries, in one transaction of the store. */
  private async produce(changes: RowChange[], endLsn: bigint, commitTime: Date): Promise<void> {
    const events = eventsOf(changes, this.sources, endLsn, commitTime);
    if (events.length === 0) return;
    const client = await this.options.pool.connect();
    try {
      const rendered: { event: PendingEvent; body: string }[] = [];
      for (const event of events)
        rendered.push({ event, body: await this.body(client, event, commitTime) });
      faultPoint('webhooks:before-outbox');
      await client.query('BEGIN');
      for (const { event, body } of rendered) {
        await client.query(
          `INSERT INTO webhook_events (id, workspace_id, type, record_id, commit_lsn, occurred_at, body)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
          [
            event.id,
            event.workspaceId,
            event.type,
            event.recordId,
            formatLsn(endLsn),
            commitTime,
            body,
          ],
        );
        await client.query(
          `INSERT INTO webhook_deliveries (endpoint_id, event_id, record_id)
           SELECT id, $1, $2 FROM webhook_endpoints
           WHERE workspace_id = $3 AND enabled AND (events IS NULL OR $4 = ANY(events))
           ORDER BY id
           ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
          [event.id, event.recordId, event.workspaceId, event.type],
        );
      }
      await client.query('COMMIT');
      this.metrics.produced += events.length;
      this.options.onProduced?.(events.length);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async body(
    client: pg.PoolClient,
    event: PendingEvent,
    commitTime: Date,
  ): Promise<string> {
    const data =
      event.row === null || event.deletedAt !== null
        ? { id: event.recordId, deletedAt: (event.deletedAt ?? commitTime).toISOString() }
        : await event.source.render(event.row, {
            workspaceId: event.workspaceId,
            baseCurrency: await this.baseCurrency(client, event.workspaceId),
            query: async <T extends Row>(text: string, values: unknown[]) =>
              (await client.query<T>(text, values)).rows,
          });
    return JSON.stringify({ type: event.type, timestamp: commitTime.toISOString(), data });
  }

  private async baseCurrency(client: pg.PoolClient, workspaceId: string): Promise<string> {
    let currency = this.currencies.get(workspaceId);
    if (currency === undefined) {
      const { rows } = await client.query<{ base_currency: string }>(
        'SELECT base_currency FROM workspaces WHERE id = $1',
        [workspaceId],
      );
      currency = rows[0]?.base_currency ?? 'EUR';
      this.currencies.set(workspaceId, currency);
    }
    return currency;
  }
}
