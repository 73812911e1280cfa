import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { BufferedTextWriter, endStream } from './buffered-text-writer.ts';
import { copyRow } from './copy-text.ts';

/**
 * Rows of one table written to a file in COPY text format while a snapshot streams in, then
 * loaded with one COPY. A PostgreSQL connection runs one COPY at a time, and records of all
 * tables arrive interleaved; spooling per table keeps memory flat and the load a plain COPY.
 */
class TableSpool {
  rows = 0;
  private readonly stream: WriteStream;
  private readonly writer: BufferedTextWriter;

  constructor(readonly file: string) {
    this.stream = createWriteStream(file);
    this.writer = new BufferedTextWriter(this.stream);
  }

  async add(values: readonly (string | null)[]): Promise<void> {
    this.rows++;
    await this.writer.write(copyRow(values));
  }

  async close(): Promise<void> {
    await this.writer.close();
    await endStream(this.stream);
  }
}

export class Spools {
  private readonly spools = new Map<string, TableSpool>();

  private constructor(private readonly dir: string) {}

  static async create(parent = tmpdir()): Promise<Spools> {
    return new Spools(await mkdtemp(path.join(parent, 'ledgerline-import-')));
  }

  async add(table: string, values: readonly (string | null)[]): Promise<void> {
    let spool = this.spools.get(table);
    if (!spool) {
      spool = new TableSpool(path.join(this.dir, `${table}.copy`));
      this.spools.set(table, spool);
    }
    await spool.add(values);
  }

  rows(table: string): number {
    return this.spools.get(table)?.rows ?? 0;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.spools.values()].map((s) => s.close()));
  }

  /** COPYs the spooled rows of `table` into `target` (columns in spool order). */
  async copyInto(
    client: pg.PoolClient,
    table: string,
    target: string,
    columns: readonly string[],
  ): Promise<void> {
    const spool = this.spools.get(table);
    if (!spool || spool.rows === 0) return;
    const sink = client.query(copyFrom(`COPY ${target} (${columns.join(', ')}) FROM STDIN`));
    await pipeline(createReadStream(spool.file, { highWaterMark: 1 << 20 }), sink);
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
