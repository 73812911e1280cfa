import pg from 'pg';
import { cString, pgTimestamp } from '../sync/replication/pgoutput-decoder.ts';

/** A row as `pg` returns it from a SELECT: each value parsed by its type, as the store's own reads see it. */
export type Row = Record<string, unknown>;

/** One row change of a committed transaction. */
export interface RowChange {
  table: string;
  op: 'insert' | 'update' | 'delete';
  /** The row before (updates and deletes: REPLICA IDENTITY FULL sends it whole). */
  old: Row | null;
  /** The row after (inserts and updates). */
  new: Row | null;
}

/** What a pgoutput message is to the webhook producer. */
export type ReadMessage =
  | { tag: 'begin' }
  | { tag: 'change'; change: RowChange }
  | { tag: 'commit'; endLsn: bigint; commitTime: Date }
  | { tag: 'other' };

interface Relation {
  name: string;
  columns: { name: string; parse: (text: string) => unknown }[];
}

const OTHER: ReadMessage = { tag: 'other' };
const BEGIN: ReadMessage = { tag: 'begin' };

/**
 * Reads pgoutput protocol version 1 messages into row changes with typed values. Unlike the
 * sync's decoder (src/sync/replication/pgoutput-decoder.ts), which writes values' bytes
 * straight into DuckDB's CSV, this one builds objects: the producer handles a few rows per
 * transaction and hands each to the record's own row -> record function. A value is parsed
 * by `pg`'s parser for its type, the one the store's reads use (dates stay text:
 * src/store/database.ts), so a row reads as a SELECT of it would.
 */
export class ChangeReader {
  private readonly relations = new Map<number, Relation>();

  read(buffer: Buffer): ReadMessage {
    switch (buffer.readUInt8(0)) {
      case 0x42: // 'B'
        return BEGIN;
      case 0x43: // 'C': flags, commit LSN, end LSN, commit time
        return {
          tag: 'commit',
          endLsn: buffer.readBigUInt64BE(10),
          commitTime: pgTimestamp(buffer.readBigInt64BE(18)),
        };
      case 0x52: // 'R'
        this.relation(buffer);
        return OTHER;
      case 0x49: {
        // 'I' relation, 'N', new row
        const relation = this.relationOf(buffer.readInt32BE(1));
        const [row] = this.tuple(relation, buffer, 6, null);
        return {
          tag: 'change',
          change: { table: relation.name, op: 'insert', old: null, new: row },
        };
      }
      case 0x55: {
        // 'U' relation, optional 'K'/'O' + old row, 'N' + new row
        const relation = this.relationOf(buffer.readInt32BE(1));
        let offset = 5;
        let old: Row | null = null;
        const kind = buffer[offset++];
        if (kind === 0x4b || kind === 0x4f) {
          [old, offset] = this.tuple(relation, buffer, offset, null);
          offset += 1;
        }
        const [row] = this.tuple(relation, buffer, offset, old);
        return { tag: 'change', change: { table: relation.name, op: 'update', old, new: row } };
      }
      case 0x44: {
        // 'D' relation, 'K'/'O', old row
        const relation = this.relationOf(buffer.readInt32BE(1));
        const [old] = this.tuple(relation, buffer, 6, null);
        return { tag: 'change', change: { table: relation.name, op: 'delete', old, new: null } };
      }
      default:
        // Truncate, type, origin, logical message: no record event.
        return OTHER;
    }
  }

  /** A TupleData at `offset`: the row, and the offset after it. An unchanged TOAST value is the old row's. */
  private tuple(
    relation: Relation,
    buffer: Buffer,
    offset: number,
    old: Row | null,
  ): [Row, number] {
    const count = buffer.readInt16BE(offset);
    offset += 2;
    const row: Row = {};
    for (let i = 0; i < count; i++) {
      const column = relation.columns[i]!;
      const kind = buffer[offset++]!;
      if (kind === 0x6e)
        row[column.name] = null; // 'n'
      else if (kind === 0x75)
        row[column.name] = old?.[column.name] ?? null; // 'u'
      else {
        const length = buffer.readInt32BE(offset);
        const text = buffer.toString('utf8', offset + 4, offset + 4 + length);
        offset += 4 + length;
        row[column.name] = column.parse(text);
      }
    }
    return [row, offset];
  }

  private relation(buffer: Buffer): void {
    const reader = { offset: 1 };
    const oid = buffer.readInt32BE(reader.offset);
    reader.offset += 4;
    cString(buffer, reader); // namespace
    const name = cString(buffer, reader);
    reader.offset += 1; // replica identity
    const count = buffer.readInt16BE(reader.offset);
    reader.offset += 2;
    const columns: Relation['columns'] = [];
    for (let i = 0; i < count; i++) {
      reader.offset += 1; // flags
      const column = cString(buffer, reader);
      const type = buffer.readInt32BE(reader.offset);
      reader.offset += 8; // type oid, type modifier
      columns.push({
        name: column,
        parse: pg.types.getTypeParser(type, 'text') as (t: string) => unknown,
      });
    }
    this.relations.set(oid, { name, columns });
  }

  private relationOf(oid: number): Relation {
    const relation = this.relations.get(oid);
    if (!relation)
      throw new Error(`pgoutput sent a change of relation ${oid} before describing it`);
    return relation;
  }
}
