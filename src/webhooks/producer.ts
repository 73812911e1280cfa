import type pg from 'pg';
import { LogicalReplicationService } from 'pg-logical-replication';
import { faultPoint } from '../sync/fault-points.ts';
import { formatLsn } from '../sync/lsn.ts';
import { RawPgoutputPlugin } from '../sync/replication/raw-pgoutput-plugin.ts';
import { PUBLICATION } from '../sync/replication/slot.ts';
import { pauseStream } from '../sync/replication/stream-pause.ts';
import { ChangeReader, type Row, type RowChange } from './change-reader.ts';
import { ChangeSpill } from './change-spill.ts';
import {
  eventsOf,
  type PendingEvent,
  type StoreQuery,
  type WebhookRecordSource,
} from './events.ts';

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
  /** Changes of one transaction held in memory before they go to a ChangeSpill (10,000). */
  spillAt?: number;
  /**
   * How long a commit waits for the ones after it, to be written with them (default 50 ms):
   * at 100 writes a second, some 20 writes of the store a second instead of 100.
   */
  lingerMs?: number;
}

/**
 * Produces the webhook events (docs/webhooks.md, "The producer"). Every node runs one; the
 * one that streams the store's slot `ledgerline_webhooks_<oid>` produces, since PostgreSQL lets one
 * connection stream a slot at a time; the others try again every `retryMs` and take over when
 * its connection ends. For each committed transaction it writes the events and their
 * deliveries in one transaction of the store, and only then confirms the transaction's end
 * to the slot: a crash anywhere makes the stream send it again, and the events' derived ids
 * make that write the same rows. Only workspaces with an endpoint have events. A transaction
 * of more than `spillAt` changes is held in a ChangeSpill, not in memory, and its events are
 * written in runs of records.
 */
export class WebhookProducer {
  readonly metrics = { producing: false, produced: 0, spilled: 0 };
  private stream: LogicalReplicationService | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The order the spill reads tables back in: the records' tables first, as listed. */
  private readonly rank: ReadonlyMap<string, number>;
  /** The tables whose rows are records or their parts: the others make no events. */
  private readonly recordTables: ReadonlySet<string>;

  constructor(private readonly options: ProducerOptions) {
    this.rank = new Map(options.sources.map((source, i) => [source.table, i]));
    this.recordTables = new Set(
      options.sources.flatMap((s) => [s.table, ...(s.parts ?? []).map((p) => p.table)]),
    );
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
    const spillAt = this.options.spillAt ?? 10_000;
    let held: RowChange[] = [];
    let spill: ChangeSpill | undefined;
    let confirmed = 0n;
    const confirm = (position: bigint, ping: boolean) =>
      position > 0n
        ? stream.acknowledge(formatLsn(position - 1n), ping).catch(() => undefined)
        : undefined;
    const then = (step: () => Promise<void>) => {
      this.chain = this.chain.then(step);
      this.chain.catch((error: unknown) => {
        // The stream is abandoned and opened again from the last confirmed position.
        this.options.log?.(
          `webhooks: producer: ${error instanceof Error ? error.message : String(error)}`,
        );
        void spill?.close();
        void stream.stop();
      });
    };
    // Transactions committed within lingerMs, or while the producer was busy, are written
    // together: the last step queued, until it begins, takes more of them (up to spillAt
    // changes).
    let open: { commits: Commit[]; changes: number } | undefined;
    const produceAndConfirm = async (commits: Commit[]) => {
      await this.produce(await this.watchedCommits(commits));
      faultPoint('webhooks:before-ack');
      confirmed = commits.at(-1)!.endLsn;
      await confirm(confirmed, false);
    };
    stream.on('data', (_lsn: string, message: Buffer) => {
      const read = reader.read(message);
      if (read.tag === 'begin') {
        held = [];
        spill = undefined;
      } else if (read.tag === 'change') {
        held.push(read.change);
        if (held.length >= spillAt) {
          // Into the store, with the stream paused meanwhile: memory stays bounded.
          const batch = held;
          held = [];
          if (spill === undefined) this.metrics.spilled += 1;
          const into = (spill ??= new ChangeSpill(this.options.pool, this.rank));
          pauseStream(stream, true);
          open = undefined;
          then(async () => {
            await into.add(await this.watched(batch));
            pauseStream(stream, false);
          });
        }
      } else if (read.tag === 'commit') {
        const commit: Commit = {
          changes: held,
          endLsn: read.endLsn,
          commitTime: read.commitTime,
        };
        const spilled = spill;
        held = [];
        spill = undefined;
        if (spilled !== undefined) {
          open = undefined;
          then(async () => {
            try {
              await spilled.add(await this.watched(commit.changes));
              for await (const run of spilled.groups())
                await this.produce([{ ...commit, changes: run }]);
            } finally {
              await spilled.close();
            }
            faultPoint('webhooks:before-ack');
            confirmed = commit.endLsn;
            await confirm(confirmed, false);
          });
        } else if (open !== undefined && open.changes + commit.changes.length <= spillAt) {
          open.commits.push(commit);
          open.changes += commit.changes.length;
        } else {
          const batch = { commits: [commit], changes: commit.changes.length };
          open = batch;
          then(async () => {
            await new Promise((resolve) => setTimeout(resolve, this.options.lingerMs ?? 50));
            if (open === batch) open = undefined;
            await produceAndConfirm(batch.commits);
          });
        }
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

  /** The commits with only the changes of workspaces that have an endpoint (one query). */
  private async watchedCommits(commits: Commit[]): Promise<Commit[]> {
    const all = await this.watched(commits.flatMap((c) => c.changes));
    const kept = new Set(all);
    return commits.map((c) => ({ ...c, changes: c.changes.filter((change) => kept.has(change)) }));
  }

  /**
   * The changes of records and their parts in workspaces that have an endpoint: the others
   * make no events.
   */
  private async watched(changes: RowChange[]): Promise<RowChange[]> {
    const records = changes.filter((c) => this.recordTables.has(c.table));
    if (records.length === 0) return [];
    const { rows } = await this.options.pool.query<{ workspace_id: string }>(
      'SELECT DISTINCT workspace_id::text FROM webhook_endpoints',
    );
    const watched = new Set(rows.map((r) => r.workspace_id));
    return records.filter((c) => watched.has(String((c.new ?? c.old)!.workspace_id)));
  }

  /**
   * Writes the events of committed transactions (whole, or a run of whole rows of one) and
   * their deliveries, in one transaction of the store.
   */
  private async produce(commits: Commit[]): Promise<void> {
    if (commits.every((c) => c.changes.length === 0)) return;
    const { pool, sources } = this.options;
    const poolQuery: StoreQuery = async <T extends Row>(text: string, values: unknown[]) =>
      (await pool.query<T>(text, values)).rows;
    const events: { event: PendingEvent; commit: Commit }[] = [];
    for (const commit of commits)
      for (const event of await eventsOf(
        commit.changes,
        sources,
        commit.endLsn,
        commit.commitTime,
        poolQuery,
      ))
        events.push({ event, commit });
    if (events.length === 0) return;
    const client = await pool.connect();
    try {
      const query: StoreQuery = async <T extends Row>(text: string, values: unknown[]) =>
        (await client.query<T>(text, values)).rows;
      const workspaces = new Map<string, Workspace>();
      const rendered: { event: PendingEvent; commit: Commit; body: string }[] = [];
      for (const { event, commit } of events) {
        const body = await this.body(event, commit.commitTime, query, workspaces);
        if (body !== undefined) rendered.push({ event, commit, body });
      }
      faultPoint('webhooks:before-outbox');
      if (rendered.length === 0) return;
      const column = <T>(of: (r: (typeof rendered)[number]) => T) => rendered.map(of);
      await client.query('BEGIN');
      // A record's own event comes before a part's `updated` of it in the same transaction
      // (ChangeSpill's order): the later, of the same id, adds nothing.
      const inserted = await client.query(
        `INSERT INTO webhook_events (id, workspace_id, type, record_id, commit_lsn, occurred_at, body)
         SELECT e.id, e.workspace_id, e.type, e.record_id, e.commit_lsn, e.occurred_at, e.body
         FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::pg_lsn[],
             $7::timestamptz[])
           WITH ORDINALITY AS e (id, workspace_id, type, record_id, body, commit_lsn, occurred_at, n)
         ORDER BY e.n
         ON CONFLICT (id) DO NOTHING`,
        [
          column((r) => r.event.id),
          column((r) => r.event.workspaceId),
          column((r) => r.event.type),
          column((r) => r.event.recordId),
          column((r) => r.body),
          column((r) => formatLsn(r.commit.endLsn)),
          column((r) => r.commit.commitTime),
        ],
      );
      await client.query(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, record_id)
         SELECT w.id, e.id, e.record_id
         FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[])
           WITH ORDINALITY AS e (id, workspace_id, type, record_id, n)
         JOIN webhook_endpoints w ON w.workspace_id = e.workspace_id AND w.enabled
           AND (w.events IS NULL OR e.type = ANY (w.events))
         ORDER BY e.n, w.id
         ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
        [
          column((r) => r.event.id),
          column((r) => r.event.workspaceId),
          column((r) => r.event.type),
          column((r) => r.event.recordId),
        ],
      );
      await client.query('COMMIT');
      this.metrics.produced += inserted.rowCount ?? 0;
      this.options.onProduced?.(inserted.rowCount ?? 0);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * An event's body; undefined when the record is not one to tell of: a record whose parts
   * changed and that is gone from the store since, or one the API does not answer.
   */
  private async body(
    event: PendingEvent,
    commitTime: Date,
    query: StoreQuery,
    workspaces: Map<string, Workspace>,
  ): Promise<string | undefined> {
    const envelope = (data: unknown) =>
      JSON.stringify({ type: event.type, timestamp: commitTime.toISOString(), data });
    if (event.deletedAt !== null || (event.row === null && !event.partOnly))
      return envelope({
        id: event.recordId,
        deletedAt: (event.deletedAt ?? commitTime).toISOString(),
      });
    const row =
      event.row ??
      (
        await query(`SELECT * FROM ${event.source.table} WHERE workspace_id = $1 AND id = $2`, [
          event.workspaceId,
          event.recordId,
        ])
      )[0];
    // Gone from the store since: its delete is an event of its own.
    if (row === undefined) return;
    let workspace = workspaces.get(event.workspaceId);
    if (workspace === undefined) {
      const [found] = await query<Workspace>(
        'SELECT base_currency, plan FROM workspaces WHERE id = $1',
        [event.workspaceId],
      );
      // A workspace gone since: its endpoints went with it, nobody to tell.
      if (found === undefined) return;
      workspace = found;
      workspaces.set(event.workspaceId, workspace);
    }
    const data = await event.source.render(row, {
      workspaceId: event.workspaceId,
      baseCurrency: workspace.base_currency,
      plan: workspace.plan,
      query,
    });
    return data === undefined ? undefined : envelope(data);
  }
}

/** A committed transaction's changes. */
interface Commit {
  changes: RowChange[];
  endLsn: bigint;
  commitTime: Date;
}

interface Workspace extends Row {
  base_currency: string;
  plan: string;
}
