import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be sent (docs/webhooks.md, "Targets"): an http(s) URL without
 * credentials whose host resolves only to public addresses. Loopback, link-local, private,
 * unique-local, carrier-grade NAT, unspecified and other reserved ranges are refused unless
 * private targets are allowed (WEBHOOK_ALLOW_PRIVATE=true, for tests and on-premises use). The
 * check is made when an endpoint is saved and again before each delivery, which then connects
 * to the address checked, so a name that resolves elsewhere later is refused then.
 */
export type TargetCheck =
  { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; problem: string };

const MAX_URL_LENGTH = 2048;

/** Ranges ipaddr.js names that a public target never lies in. */
const NOT_PUBLIC = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'private',
  'uniqueLocal',
  'carrierGradeNat',
  'reserved',
  'benchmarking',
  'amt',
  'as112',
  'as112v6',
  'deprecated',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'discard',
]);

/** The URL's form alone: what can be said without resolving its host. */
export function targetFormProblem(text: string): string | undefined {
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hostname === '') return 'must name a host';
  return undefined;
}

/** Whether an address is one a webhook may reach when private targets are not allowed. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return !NOT_PUBLIC.has(parsed.range());
}

/** Checks `text` as a target now: its form, then every address its host resolves to. */
export async function checkTarget(
  text: string,
  options: { allowPrivate: boolean },
): Promise<TargetCheck> {
  const problem = targetFormProblem(text);
  if (problem !== undefined) return { ok: false, problem };
  const url = new URL(text);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = ipaddr.isValid(host)
      ? [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }]
      : await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    return {
      ok: false,
      problem: `host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  if (addresses.length === 0) return { ok: false, problem: `host ${host} does not resolve` };
  if (!options.allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused)
      return {
        ok: false,
        problem: `resolves to ${refused.address}, a loopback, link-local or private address (WEBHOOK_ALLOW_PRIVATE=true allows it)`,
      };
  }
  const first = addresses[0]!;
  return { ok: true, url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
