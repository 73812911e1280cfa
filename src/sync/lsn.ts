/** PostgreSQL log sequence numbers ("16/B374D848"), compared and moved as 64-bit integers. */
export type Lsn = bigint;

export function parseLsn(text: string): Lsn {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) throw new Error(`Not an LSN: ${text}`);
  return (BigInt(`0x${match[1]!}`) << 32n) | BigInt(`0x${match[2]!}`);
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export const ZERO_LSN: Lsn = 0n;
