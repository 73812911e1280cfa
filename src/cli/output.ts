/** Exit with one clear line, never a stack trace: for problems the user can fix. */
export class UserError extends Error {}

export function info(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** `info`, each line led by the node's name when it has one (NODE_NAME): `node a: …`. */
export function nodeLog(node: string | undefined): (line: string) => void {
  return node === undefined ? info : (line) => info(`node ${node}: ${line}`);
}

/** A rate and ETA line for long jobs. */
export function progressLine(
  label: string,
  done: number,
  startedMs: number,
  total?: number,
): string {
  const seconds = Math.max((Date.now() - startedMs) / 1000, 0.001);
  const rate = done / seconds;
  let line = `${label}: ${done.toLocaleString('en-US')}${total ? ` / ${total.toLocaleString('en-US')}` : ''} (${Math.round(rate).toLocaleString('en-US')}/s`;
  if (total && rate > 0) line += `, ETA ${Math.max(0, Math.round((total - done) / rate))} s`;
  return `${line})`;
}
