import type { ChangeBatch, TableChanges } from '../change-batch.ts';
import { MESSAGE, readCommit, readRelation } from './pgoutput-messages.ts';

/** What a pgoutput message means to the sync; row changes are already in the batch. */
export type Decoded =
  | { tag: 'begin' }
  | { tag: 'commit'; endLsn: bigint; commitTime: Date }
  | { tag: 'change' }
  | { tag: 'truncate'; tables: string[] }
  | { tag: 'other' };

const BEGIN: Decoded = { tag: 'begin' };
const CHANGE: Decoded = { tag: 'change' };
const OTHER: Decoded = { tag: 'other' };

const NULL = 0x6e; // 'n'
const UNCHANGED = 0x75; // 'u'
const TEXT = 0x74; // 't'
const BINARY = 0x62; // 'b'

/** The layout of one TupleData: per column its kind and where its value lies in the message. */
class Tuple {
  count = 0;
  kinds = new Uint8Array(64);
  starts = new Int32Array(64);
  ends = new Int32Array(64);

  read(buffer: Buffer, offset: number): number {
    const count = buffer.readInt16BE(offset);
    offset += 2;
    if (count > this.kinds.length) {
      this.kinds = new Uint8Array(count);
      this.starts = new Int32Array(count);
      this.ends = new Int32Array(count);
    }
    this.count = count;
    for (let i = 0; i < count; i++) {
      const kind = buffer[offset++]!;
      this.kinds[i] = kind;
      if (kind === TEXT || kind === BINARY) {
        const length = buffer.readInt32BE(offset);
        this.starts[i] = offset + 4;
        this.ends[i] = offset + 4 + length;
        offset += 4 + length;
      }
    }
    return offset;
  }

  sameValue(buffer: Buffer, i: number, other: Tuple): boolean {
    const kind = this.kinds[i]!;
    if (kind === UNCHANGED || other.kinds[i] === UNCHANGED) return true;
    if (kind !== other.kinds[i]) return false;
    if (kind === NULL) return true;
    return (
      buffer.compare(buffer, other.starts[i], other.ends[i], this.starts[i], this.ends[i]) === 0
    );
  }
}

interface Relation {
  name: string;
  /** Per read-model column (CSV order): its position in the relation's columns. */
  positions: Int32Array;
  /** Positions of the key columns in the relation. */
  keyPositions: number[];
  changes: TableChanges;
}

/**
 * Reads pgoutput protocol version 1 messages and writes their row changes straight into a
 * ChangeBatch: each value's bytes go from the message into the table's CSV line, with no
 * JavaScript string or object per row. Relations are remembered as they are described.
 * An update carrying the old row (REPLICA IDENTITY FULL) that changed the key writes a
 * delete of the old key first, and a column the new row sends as "unchanged" (an
 * out-of-line TOAST value left as it was) is taken from the old row.
 */
export class PgoutputDecoder {
  private readonly relations = new Map<number, Relation>();
  private readonly before = new Tuple();
  private readonly after = new Tuple();

  constructor(private readonly batch: ChangeBatch) {}

  decode(buffer: Buffer): Decoded {
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
        this.after.read(buffer, 6);
        this.writeRow(relation, buffer, this.after, null);
        return CHANGE;
      }
      case MESSAGE.update: {
        // relation, optional 'K'/'O' + old row, 'N' + new row
        const relation = this.relationOf(buffer.readInt32BE(1));
        let offset = 5;
        let old: Tuple | null = null;
        const kind = buffer[offset++];
        if (kind === 0x4b || kind === 0x4f) {
          offset = this.before.read(buffer, offset) + 1;
          old = this.before;
        }
        this.after.read(buffer, offset);
        if (old && relation.keyPositions.some((p) => !this.after.sameValue(buffer, p, old)))
          this.writeKey(relation, buffer, old);
        this.writeRow(relation, buffer, this.after, kind === 0x4f ? old : null);
        return CHANGE;
      }
      case MESSAGE.delete: {
        // relation, 'K'/'O', old row
        const relation = this.relationOf(buffer.readInt32BE(1));
        this.before.read(buffer, 6);
        this.writeKey(relation, buffer, this.before);
        return CHANGE;
      }
      case MESSAGE.truncate: {
        // count, options, relation ids
        const count = buffer.readInt32BE(1);
        const tables: string[] = [];
        for (let i = 0; i < count; i++)
          tables.push(this.relationOf(buffer.readInt32BE(6 + 4 * i)).name);
        return { tag: 'truncate', tables };
      }
      case MESSAGE.type:
      case MESSAGE.origin:
      case MESSAGE.message:
        return OTHER;
      default:
        throw new Error(`Unknown pgoutput message ${String.fromCharCode(buffer.readUInt8(0))}`);
    }
  }

  private writeRow(relation: Relation, buffer: Buffer, row: Tuple, old: Tuple | null): void {
    const changes = relation.changes;
    changes.begin('upsert');
    for (let c = 0; c < relation.positions.length; c++) {
      const p = relation.positions[c]!;
      let source = row;
      if (row.kinds[p] === UNCHANGED) {
        if (!old || old.kinds[p] === UNCHANGED)
          throw new Error(
            `An update of ${relation.name} left a TOAST value unchanged without sending the old row (REPLICA IDENTITY FULL needed)`,
          );
        source = old;
      }
      this.writeValue(changes, c, buffer, source, p);
    }
    changes.end();
  }

  private writeKey(relation: Relation, buffer: Buffer, row: Tuple): void {
    const changes = relation.changes;
    changes.begin('delete');
    for (let c = 0; c < relation.positions.length; c++) {
      if (changes.keyIndex[c]! < 0) changes.nullField();
      else this.writeValue(changes, c, buffer, row, relation.positions[c]!);
    }
    changes.end();
  }

  private writeValue(
    changes: TableChanges,
    column: number,
    buffer: Buffer,
    row: Tuple,
    p: number,
  ): void {
    const kind = row.kinds[p];
    if (kind === NULL) changes.nullField();
    else if (kind !== TEXT) throw new Error(`pgoutput sent a ${String(kind)} value; text expected`);
    else if (changes.isArray[column])
      changes.arrayField(buffer.toString('utf8', row.starts[p], row.ends[p]));
    else changes.bytesField(buffer, row.starts[p]!, row.ends[p]!);
  }

  private relation(buffer: Buffer): void {
    const { oid, name, columns } = readRelation(buffer);
    const names = columns.map((column) => column.name);
    const changes = this.batch.table(name);
    const positions = Int32Array.from(changes.columns, (column) => {
      const at = names.indexOf(column.name);
      if (at < 0) throw new Error(`Changes to ${name} lack column ${column.name}`);
      return at;
    });
    this.relations.set(oid, {
      name,
      positions,
      keyPositions: changes.keys.map((k) => names.indexOf(k)),
      changes,
    });
  }

  private relationOf(oid: number): Relation {
    const relation = this.relations.get(oid);
    if (!relation) throw new Error(`pgoutput sent a row of relation ${oid} before describing it`);
    return relation;
  }
}
