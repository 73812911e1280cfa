import type { Pgoutput } from 'pg-logical-replication';

/**
 * A lean reader of pgoutput protocol version 1 messages, keeping every value as
 * PostgreSQL's text. Compared with the library's parser it slices UTF-8 straight from the
 * buffer (no TextDecoder call per value), and of an update's old row (REPLICA IDENTITY FULL)
 * it decodes only what the sync uses: the key columns, and the columns the new row sends as
 * "unchanged" (out-of-line TOAST values left as they were).
 */
export class PgoutputTextParser {
  private readonly relations = new Map<number, Pgoutput.MessageRelation>();

  constructor(private readonly keyColumns: (table: string) => string[]) {}

  parse(buffer: Buffer): Pgoutput.Message {
    const reader = new Reader(buffer);
    const tag = String.fromCharCode(reader.uint8());
    switch (tag) {
      case 'B': {
        const commitLsn = reader.lsn();
        const commitTime = reader.int64();
        return { tag: 'begin', commitLsn, commitTime, xid: reader.int32() };
      }
      case 'C': {
        const flags = reader.uint8();
        const commitLsn = reader.lsn();
        const commitEndLsn = reader.lsn();
        return { tag: 'commit', flags, commitLsn, commitEndLsn, commitTime: reader.int64() };
      }
      case 'R':
        return this.relation(reader);
      case 'Y': {
        const typeOid = reader.int32();
        return { tag: 'type', typeOid, typeSchema: reader.string(), typeName: reader.string() };
      }
      case 'O': {
        const originLsn = reader.lsn();
        return { tag: 'origin', originLsn, originName: reader.string() };
      }
      case 'I': {
        const relation = this.relationOf(reader.int32());
        reader.uint8(); // 'N'
        return { tag: 'insert', relation, new: this.tuple(reader, relation) };
      }
      case 'U': {
        const relation = this.relationOf(reader.int32());
        let kind = String.fromCharCode(reader.uint8());
        let before: RawTuple | undefined;
        let keyOnly = false;
        if (kind === 'K' || kind === 'O') {
          before = rawTuple(reader);
          keyOnly = kind === 'K';
          kind = String.fromCharCode(reader.uint8()); // 'N'
        }
        const after = rawTuple(reader);
        const names = relation.columns.map((c) => c.name);
        const wanted = new Set(this.keyColumns(relation.name));
        after.kinds.forEach((k, i) => k === UNCHANGED && wanted.add(names[i]!));
        const old = before ? before.decode(names, wanted) : null;
        const fresh = after.decode(names, null, old ?? undefined);
        return {
          tag: 'update',
          relation,
          key: keyOnly ? old : null,
          old: keyOnly ? null : old,
          new: fresh,
        };
      }
      case 'D': {
        const relation = this.relationOf(reader.int32());
        const kind = String.fromCharCode(reader.uint8());
        const before = rawTuple(reader).decode(
          relation.columns.map((c) => c.name),
          new Set(this.keyColumns(relation.name)),
        );
        return {
          tag: 'delete',
          relation,
          key: kind === 'K' ? before : null,
          old: kind === 'O' ? before : null,
        };
      }
      case 'T': {
        const count = reader.int32();
        const options = reader.uint8();
        const relations = Array.from({ length: count }, () => this.relationOf(reader.int32()));
        return {
          tag: 'truncate',
          cascade: (options & 1) === 1,
          restartIdentity: (options & 2) === 2,
          relations,
        };
      }
      default:
        throw new Error(`Unknown pgoutput message ${tag}`);
    }
  }

  private relation(reader: Reader): Pgoutput.MessageRelation {
    const relationOid = reader.int32();
    const schema = reader.string();
    const name = reader.string();
    const identity = String.fromCharCode(reader.uint8());
    const count = reader.int16();
    const columns: Pgoutput.RelationColumn[] = [];
    for (let i = 0; i < count; i++) {
      const flags = reader.uint8();
      const column = reader.string();
      const typeOid = reader.int32();
      const typeMod = reader.int32();
      columns.push({
        flags,
        name: column,
        typeOid,
        typeMod,
        typeSchema: null,
        typeName: null,
        parser: (raw: unknown) => raw,
      });
    }
    const replicaIdentity =
      identity === 'f'
        ? 'full'
        : identity === 'n'
          ? 'nothing'
          : identity === 'i'
            ? 'index'
            : 'default';
    const relation: Pgoutput.MessageRelation = {
      tag: 'relation',
      relationOid,
      schema,
      name,
      replicaIdentity,
      columns,
      keyColumns: columns.filter((c) => (c.flags & 1) === 1).map((c) => c.name),
    };
    this.relations.set(relationOid, relation);
    return relation;
  }

  private relationOf(oid: number): Pgoutput.MessageRelation {
    const relation = this.relations.get(oid);
    if (!relation) throw new Error(`pgoutput sent a row of relation ${oid} before describing it`);
    return relation;
  }

  private tuple(reader: Reader, relation: Pgoutput.MessageRelation): Record<string, string | null> {
    return rawTuple(reader).decode(
      relation.columns.map((c) => c.name),
      null,
    );
  }
}

const NULL = 0x6e; // 'n'
const UNCHANGED = 0x75; // 'u'
const TEXT = 0x74; // 't'

interface RawTuple {
  kinds: number[];
  /** Decodes the columns in `only` (all when null); an unchanged value comes from `fallback`. */
  decode(
    names: string[],
    only: Set<string> | null,
    fallback?: Record<string, string | null>,
  ): Record<string, string | null>;
}

/** Reads a TupleData's layout without decoding any value yet. */
function rawTuple(reader: Reader): RawTuple {
  const count = reader.int16();
  const kinds: number[] = new Array<number>(count);
  const starts: number[] = new Array<number>(count);
  const ends: number[] = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const kind = reader.uint8();
    kinds[i] = kind;
    if (kind === TEXT || kind === 0x62 /* 'b' */) {
      const length = reader.int32();
      starts[i] = reader.offset;
      ends[i] = reader.offset + length;
      reader.offset += length;
    }
  }
  const buffer = reader.buffer;
  return {
    kinds,
    decode(names, only, fallback) {
      const row: Record<string, string | null> = {};
      for (let i = 0; i < count; i++) {
        const name = names[i]!;
        if (only && !only.has(name)) continue;
        const kind = kinds[i]!;
        if (kind === NULL) row[name] = null;
        else if (kind === UNCHANGED) {
          const value = fallback?.[name];
          if (value !== undefined) row[name] = value;
        } else row[name] = buffer.toString('utf8', starts[i], ends[i]);
      }
      return row;
    },
  };
}

class Reader {
  offset = 0;
  constructor(readonly buffer: Buffer) {}

  uint8(): number {
    return this.buffer.readUInt8(this.offset++);
  }
  int16(): number {
    const value = this.buffer.readInt16BE(this.offset);
    this.offset += 2;
    return value;
  }
  int32(): number {
    const value = this.buffer.readInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  int64(): bigint {
    const value = this.buffer.readBigInt64BE(this.offset);
    this.offset += 8;
    return value;
  }
  lsn(): string {
    const upper = this.buffer.readUInt32BE(this.offset);
    const lower = this.buffer.readUInt32BE(this.offset + 4);
    this.offset += 8;
    return `${upper.toString(16).toUpperCase()}/${lower.toString(16).toUpperCase()}`;
  }
  string(): string {
    const end = this.buffer.indexOf(0, this.offset);
    const value = this.buffer.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return value;
  }
}
