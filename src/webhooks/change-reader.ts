import pg from 'pg';
import { MESSAGE, readCommit, readRelation } from '../sync/replication/pgoutput-messages.ts';

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
      case MESSAGE.begin:
        return BEGIN;
      case MESSAGE.commit:
        return readCommit(buffer);
      case MESSAGE.relation:
        this.relation(buffer);
        return OTHER;
      case MESSAGE.insert: {
        // relation, 'N', new row
        const relation = this.relationOf(buffer.readInt32BE(1));
        const [row] = this.tuple(relation, buffer, 6, null);
        return {
          tag: 'change',
          change: { table: relation.name, op: 'insert', old: null, new: row },
        };
      }
      case MESSAGE.update: {
        // relation, optional 'K'/'O' + old row, 'N' + new row
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
      case MESSAGE.delete: {
        // relation, 'K'/'O', old row
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
    const { oid, name, columns } = readRelation(buffer);
    this.relations.set(oid, {
      name,
      columns: columns.map((column) => ({
        name: column.name,
        parse: pg.types.getTypeParser(column.typeOid, 'text') as (t: string) => unknown,
      })),
    });
  }

  private relationOf(oid: number): Relation {
    const relation = this.relations.get(oid);
    if (!relation)
      throw new Error(`pgoutput sent a change of relation ${oid} before describing it`);
    return relation;
  }
}
