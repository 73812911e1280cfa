/**
 * The fuzzed input of test/api/api-fuzz.test.ts: the operations of the served OpenAPI document,
 * and for each a request generator (fast-check) of values its schemas allow, values of the wrong
 * type and the values that once broke the engine (NASTY_STRINGS), with ids of the small snapshot
 * (test/support/small-snapshot.ts) so that writes get past the 404s.
 */
import fc from 'fast-check';
import { ids, TOKENS } from './small-snapshot.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON schemas and bodies are walked by value
export type Json = any;

/** Strings that broke the edge, the store or the sync, and the usual parser breakers. */
const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  '0000-01-01',
  '0000-01-01T09:00:00Z',
  '2026-02-30',
  '2026-13-01',
  '10000-01-01',
  '9999-12-31',
  '9999-12-31T23:59:59.999999Z',
  '0001-01-01',
  '0001-01-01T00:00:00Z',
  '-0001-01-01',
  '2026-10-01T25:00:00Z',
  '2026-10-01T10:00:00+99:00',
  'infinity',
  'NaN',
  'Infinity',
  '1e309',
  '-1',
  '99999999999999999999.99999',
  '0.00001',
  '__proto__',
  'constructor',
  '',
  ' ',
  ' padded ',
  'NULL',
  'comma, "quote" and\nnewline\r\n\ttab \\ backslash',
  "'; DROP TABLE clients; --",
  '𝄞 😀 non-BMP',
  '\uD800',
  '%00',
  'é',
  'x'.repeat(5000),
];

const UNKNOWN_ID = 'ffffffff-0000-4000-8000-000000000000';
const KNOWN_IDS = Object.values(ids);
/** The records behind each `/{resource}/{id}` path. */
const RECORD_IDS: Record<string, string[]> = {
  clients: [ids.client],
  invoices: [ids.invoice],
  tasks: [ids.task],
  expenses: [ids.expense],
  'time-entries': [ids.entry1, ids.entry2],
  bills: [ids.bill],
  payments: [ids.payment],
  payees: [ids.payee],
};
/** The ids a field (or a path's `{id}`) of this name most likely holds, so that writes get past the 404s. */
function likelyIds(name: string): string[] {
  const resource = /\/([\w-]+)\/\{id\}$/.exec(name)?.[1];
  if (resource) return RECORD_IDS[resource] ?? KNOWN_IDS;
  if (/^project/.test(name)) return [ids.project];
  if (/^client/.test(name)) return [ids.client];
  if (/^task/.test(name)) return [ids.task];
  if (/^(user|assignee|member|payee)/.test(name))
    return [ids.owner, ids.member, ids.manager, ids.admin];
  return KNOWN_IDS;
}
const idValue = (name: string) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...likelyIds(name)) },
    { weight: 2, arbitrary: fc.constantFrom(...KNOWN_IDS) },
    { weight: 1, arbitrary: fc.constant(UNKNOWN_ID) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom('not-a-uuid', '\u0000', ids.client.toUpperCase()) },
  );
const someDay = fc.date({
  min: new Date('2020-01-01'),
  max: new Date('2030-12-31'),
  noInvalidDate: true,
});
const dateValue = fc.oneof(
  { weight: 4, arbitrary: someDay.map((d) => d.toISOString().slice(0, 10)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '0000-01-01',
      '0001-01-01',
      '9999-12-31',
      '10000-01-01',
      '2026-02-30',
      '2026-2-3',
    ),
  },
);
const timestampValue = fc.oneof(
  { weight: 4, arbitrary: someDay.map((d) => d.toISOString()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '0000-01-01T09:00:00Z',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '2026-02-30T10:00:00Z',
      '2026-10-01T10:00:00+14:00',
    ),
  },
);
const nasty: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, true, 0, -1, 1.5, 1e308, [], {}, ['\u0000'], { a: 1 }),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

/** A value for a JSON schema: mostly one it allows, sometimes anything. */
function valueFor(schema: Json, name: string, depth = 0): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 3, arbitrary: allowedValue(schema ?? {}, name, depth) },
    { weight: 1, arbitrary: nasty },
  );
}

function allowedValue(schema: Json, name: string, depth: number): fc.Arbitrary<Json> {
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema.anyOf || schema.oneOf) {
    const options = (schema.anyOf ?? schema.oneOf) as Json[];
    return fc.oneof(...options.map((s) => allowedValue(s, name, depth)));
  }
  const type = Array.isArray(schema.type) ? fc.constantFrom(...(schema.type as string[])) : null;
  if (type) return type.chain((t) => allowedValue({ ...schema, type: t }, name, depth));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      if (name === 'durationSeconds') return fc.integer({ min: 1, max: 86_400 });
      return fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.constantFrom(0, 3600, 86_401));
    case 'array':
      return depth > 1
        ? fc.constant([])
        : fc.array(valueFor(schema.items, name, depth + 1), { maxLength: 4 });
    case 'object':
      return depth > 1 ? fc.constant({}) : bodyFor(schema, depth + 1);
    case 'string':
      return stringFor(schema, name);
    default:
      if (name === 'durationSeconds') return fc.integer({ min: 0, max: 90_000 });
      return fc.oneof(stringFor({}, name), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

/** A string by its format, or by what its name says it holds. */
function stringFor(schema: Json, name: string): fc.Arbitrary<string> {
  if (schema.format === 'uuid' || /Ids?$/.test(name) || name === 'id') return idValue(name);
  if (schema.format === 'date' || /Date(From|To)?$|^(from|to)$/.test(name)) return dateValue;
  if (schema.format === 'date-time' || /(At|Time)(From|To)?$/.test(name)) return timestampValue;
  if (/^(limit|page|perPage)$/.test(name))
    return fc.oneof(fc.integer({ min: -1, max: 201 }).map(String), fc.constant('1.5'));
  if (/Min$|Max$|[Rr]ate$|[Aa]mount$|Hours$/.test(name))
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('10.50', '84.20', '1', '120.5') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('0', '-3.25', '120.5000', '1e3', '99999999999999.9999'),
      },
    );
  if (/[Ee]mail$/.test(name)) return fc.constantFrom('ana@example.com', 'not an email');
  if (/website/.test(name)) return fc.constantFrom('https://example.com', 'example.com');
  if (/Country$/.test(name)) return fc.constantFrom('US', 'DE', 'ZZ');
  if (/currency/i.test(name)) return fc.constantFrom('USD', 'EUR', 'JPY', 'usd', 'XXX', 'KWD');
  if (/duration/.test(name)) return fc.constantFrom('1h30m', '90m', '1:30', '0s', '25h', 'soon');
  return fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom('Globex', 'design', 'Website', 'a'),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
  );
}

/**
 * A body of allowed values with, half of the time, one field made nasty: one bad value among
 * good ones is what reaches past validation into the store and the sync.
 */
function bodyFor(
  schema: Json,
  depth = 0,
  refused: string[] = [],
): fc.Arbitrary<Record<string, Json>> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>);
  const allowed = new Map(
    properties
      .filter(([name]) => !refused.includes(name))
      .map(([name, s]) => [name, allowedValue(s ?? {}, name, depth)] as const),
  );
  const required = ((schema.required ?? []) as string[]).filter((name) => allowed.has(name));
  const optional = [...allowed.keys()].filter((name) => !required.includes(name));
  // The required fields and up to three others: a body with fewer fields has fewer ways to
  // contradict itself, so more of them pass validation and reach the store.
  const valid = fc
    .subarray(optional, { maxLength: Math.min(3, optional.length) })
    .chain((names) =>
      fc.record(Object.fromEntries([...required, ...names].map((n) => [n, allowed.get(n)!]))),
    );
  const spoiled =
    properties.length === 0
      ? fc.constant({})
      : fc.oneof(
          fc.constant({}),
          fc
            .tuple(fc.constantFrom(...properties.map(([name]) => name)), nasty)
            .map(([name, value]) => ({ [name]: value })),
        );
  const extra = fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'unknownField'), nasty, {
    maxKeys: 1,
  });
  return fc
    .tuple(
      valid,
      spoiled,
      fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }),
    )
    .map(([body, bad, more]) => ({ ...more, ...body, ...bad }));
}

export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query: { name: string; schema: Json }[];
  pathParameters: { name: string; schema: Json }[];
  /** The JSON schema of the body, when the operation takes one. */
  body?: Json;
}

/** The operations of the OpenAPI document the server serves. */
export function operationsOf(document: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(methods as Record<string, Json>)) {
      const parameters = (op.parameters ?? []) as Json[];
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        query: parameters.filter((p) => p.in === 'query'),
        pathParameters: parameters.filter((p) => p.in === 'path'),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}
export interface Request {
  method: Operation['method'];
  url: string;
  token: string;
  headers: Record<string, string>;
  payload: string | undefined;
}

/** A cursor a list issued, tampered with or not; a long junk one when no list issued any. */
function cursorValue(cursors: readonly string[]): fc.Arbitrary<string> {
  return cursors.length === 0
    ? fc.constant('x'.repeat(5000))
    : fc.oneof(
        fc.constantFrom(...cursors),
        fc
          .tuple(fc.constantFrom(...cursors), fc.constantFrom('é', '==', '=', 'A', '\u0000', '.'))
          .map(([c, tail]) => c + tail),
        fc.constantFrom(...cursors).map((c) => c.slice(0, -1)),
        fc.constant('x'.repeat(5000)),
      );
}

/**
 * A request for the operation: its path parameters, up to four query pairs (a `cursor` one of
 * `cursors`), a body by its schema or a broken one, a token and an idempotency key.
 */
export function requestFor(op: Operation, cursors: readonly string[]): fc.Arbitrary<Request> {
  const pathParts = Object.fromEntries(
    op.pathParameters.map((p) => [
      p.name,
      p.name === 'id'
        ? idValue(op.path)
        : fc.oneof(
            allowedValue(p.schema ?? {}, p.name, 0),
            fc.constantFrom('invoices', 'unpaid-time', 'nope', '__proto__', '%00'),
          ),
    ]),
  );
  const pair = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...op.query.map((p) => p.name), 'limit') },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'foo') },
  );
  const queryPairs = fc.array(
    pair.chain((name) => {
      const schema = op.query.find((p) => p.name === name)?.schema ?? {};
      const value: fc.Arbitrary<Json> =
        name === 'cursor' ? cursorValue(cursors) : valueFor(schema, name);
      return value.map((v) => [name, typeof v === 'string' ? v : JSON.stringify(v)] as const);
    }),
    { maxLength: 4 },
  );
  const body =
    op.body === undefined
      ? fc.constant(undefined)
      : fc.oneof(
          {
            weight: 10,
            // An expense's currency is the client's: sending one is refused
            // (docs/contract.md, "Expense writes").
            arbitrary: bodyFor(op.body, 0, op.path.startsWith('/expenses') ? ['currency'] : []).map(
              (b) => JSON.stringify(b),
            ),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom('{', '[]', 'null', '"text"', '{"name":"\\u0000"}'),
          },
        );
  const token = fc.oneof(
    { weight: 6, arbitrary: fc.constant(TOKENS.owner) },
    { weight: 1, arbitrary: fc.constantFrom(TOKENS.member, TOKENS.manager, TOKENS.admin) },
    { weight: 1, arbitrary: fc.constantFrom(TOKENS.revoked, 'tt_test_junk', TOKENS.writeOnly) },
  );
  const idempotencyKey = fc.oneof(
    { weight: 6, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom('k1', 'k2', 'k3') },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '\u00e9', 'x'.repeat(300)) },
  );
  return fc
    .record({ parts: fc.record(pathParts), queryPairs, body, token, idempotencyKey })
    .map(({ parts, queryPairs, body, token, idempotencyKey }) => {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(String(parts[name])),
      );
      const query = new URLSearchParams(
        queryPairs.map(([k, v]): [string, string] => [k, v]),
      ).toString();
      const headers: Record<string, string> = {};
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      return {
        method: op.method,
        url: `/api/v1${path}${query ? `?${query}` : ''}`,
        token,
        headers,
        payload: body,
      };
    });
}
