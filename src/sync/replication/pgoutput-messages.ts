/**
 * The parts of pgoutput protocol version 1 messages that both of its readers take alike: the
 * sync's decoder (pgoutput-decoder.ts), which writes values' bytes into the read model's CSV, and
 * the webhook producer's reader (src/webhooks/change-reader.ts), which parses them into rows.
 * Each message starts with a byte that names its kind.
 */
export const MESSAGE = {
  begin: 0x42, // 'B'
  commit: 0x43, // 'C'
  relation: 0x52, // 'R'
  insert: 0x49, // 'I'
  update: 0x55, // 'U'
  delete: 0x44, // 'D'
  truncate: 0x54, // 'T'
  type: 0x59, // 'Y'
  origin: 0x4f, // 'O'
  message: 0x4d, // 'M', a logical decoding message
} as const;

/** The commit message: flags, commit LSN, end LSN, commit time. */
export function readCommit(buffer: Buffer): { tag: 'commit'; endLsn: bigint; commitTime: Date } {
  return {
    tag: 'commit',
    endLsn: buffer.readBigUInt64BE(10),
    commitTime: pgTimestamp(buffer.readBigInt64BE(18)),
  };
}

/** A relation message: the table a later row change names by `oid`, with its columns in order. */
export interface RelationMessage {
  oid: number;
  name: string;
  columns: { name: string; typeOid: number }[];
}

export function readRelation(buffer: Buffer): RelationMessage {
  const reader = { offset: 1 };
  const oid = buffer.readInt32BE(reader.offset);
  reader.offset += 4;
  cString(buffer, reader); // namespace
  const name = cString(buffer, reader);
  reader.offset += 1; // replica identity
  const count = buffer.readInt16BE(reader.offset);
  reader.offset += 2;
  const columns: RelationMessage['columns'] = [];
  for (let i = 0; i < count; i++) {
    reader.offset += 1; // flags
    const column = cString(buffer, reader);
    const typeOid = buffer.readInt32BE(reader.offset);
    reader.offset += 8; // type oid, type modifier
    columns.push({ name: column, typeOid });
  }
  return { oid, name, columns };
}

/** A NUL-terminated string at `reader.offset`, moving the offset past it. */
function cString(buffer: Buffer, reader: { offset: number }): string {
  const end = buffer.indexOf(0, reader.offset);
  const value = buffer.toString('utf8', reader.offset, end);
  reader.offset = end + 1;
  return value;
}

/** pgoutput timestamps: microseconds since 2000-01-01 UTC. */
function pgTimestamp(micros: bigint): Date {
  return new Date(946_684_800_000 + Number(micros / 1000n));
}
