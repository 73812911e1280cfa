import { DataType, Decimal, type Table, tableFromIPC, type Vector } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';
import { Workspace } from '../support/workspace-builder.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are compared by value
type Body = Record<string, any>;

const ARROW = 'application/vnd.apache.arrow.stream';

/** Text that breaks parsers: separators, quotes, line breaks, backslashes, non-BMP. */
const ODD = 'Comma, "Quote" \'single\'\nLine\r\nTab\t\\Back\\ 😀 𝄞 Ünï';

/** The small snapshot, with clients whose names and rates a parser or a float would break. */
function snapshot() {
  const s = smallSnapshot();
  const clients = [
    { name: `${ODD} JPY`, currency: 'JPY', defaultRate: '15000' },
    { name: `${ODD} KWD`, currency: 'KWD', defaultRate: '1.125' },
    // 9999999999999999 cents: past 2^53, a double would make it 100000000000000.00.
    { name: `${ODD} EUR`, currency: 'EUR', defaultRate: '99999999999999.99' },
    { name: 'Negative none', currency: null, defaultRate: null },
  ];
  s.clients.push(
    ...(clients.map((c, i) => ({
      id: `31000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      ...c,
      billingCountry: 'DE',
    })) as never[]),
  );
  return s;
}

/** A workspace of team payouts in JPY, KWD and EUR, with amounts past 2^53. */
function payoutWorkspace(): Workspace {
  const w = new Workspace({ baseCurrency: 'EUR' });
  const jpyUser = w.user(`${ODD} Yen`);
  const kwdUser = w.user(`${ODD} Dinar`);
  const eurUser = w.user('Eve Euro');
  const client = w.client(`${ODD} client`, 'EUR');
  const project = w.project(`${ODD} project`, client);
  const jpy = w.payee(jpyUser, { name: `${ODD} payee`, rates: [['2026-01-01', '4500', 'JPY']] });
  const kwd = w.payee(kwdUser, { name: 'Kuwait', rates: [['2026-01-01', '12.125', 'KWD']] });
  const eur = w.payee(eurUser, {
    name: 'Big',
    rates: [['2026-01-01', '99999999999999.99', 'EUR']],
  });
  const e1 = w.entry({ user: jpyUser, project, date: '2026-10-02', seconds: 3600 });
  const e2 = w.entry({ user: kwdUser, project, date: '2026-10-03', seconds: 5400 });
  w.entry({ user: eurUser, project, date: '2026-10-04', seconds: 7200 });
  w.entry({ user: kwdUser, project, date: '2026-10-05', seconds: 1800, billable: false });
  const jpyBill = w.bill(jpy, 'JPY', 'APPROVED', [{ entry: e1, amount: '4500' }]);
  const kwdBill = w.bill(kwd, 'KWD', 'APPROVED', [{ entry: e2, amount: '18.188' }]);
  w.bill(eur, 'EUR', 'APPROVED', [{ kind: 'ADJUSTMENT', amount: '99999999999999.99' }]);
  w.payment(jpy, 'JPY', '4500', [[jpyBill, '4500']]);
  w.payment(kwd, 'KWD', '10.001', [[kwdBill, '10.001']]);
  w.fx('JPY', 'EUR', '2026-01-01', '0.0061');
  w.fx('KWD', 'EUR', '2026-01-01', '2.98');
  return w;
}

/** A decimal text at `scale` decimals ("15000" at 3: "15000.000"). */
function atScale(text: string, scale: number): string {
  const [whole, fraction = ''] = text.split('.');
  return scale === 0 ? whole! : `${whole}.${fraction.padEnd(scale, '0')}`;
}

/** An Arrow Decimal's unscaled integer (as apache-arrow writes it) as decimal text. */
function decimalText(unscaled: string, scale: number): string {
  const negative = unscaled.startsWith('-');
  const digits = (negative ? unscaled.slice(1) : unscaled).padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const text = scale === 0 ? whole : `${whole}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}

/**
 * Checks one Arrow value against the JSON value it stands for, by the Arrow type: decimals as
 * exact text at the column's scale, Int64 as BigInt, dates and timestamps as their ISO text,
 * structs field by field, lists element by element. Returns how many leaves it compared.
 */
function expectSame(value: unknown, json: unknown, type: DataType, at: string): number {
  if (json === null || json === undefined) {
    expect(value, at).toBeNull();
    return 1;
  }
  expect(value, at).not.toBeNull();
  if (type instanceof Decimal) {
    expect(decimalText(String(value), type.scale), at).toBe(atScale(json as string, type.scale));
    return 1;
  }
  if (DataType.isStruct(type)) {
    const row = value as Record<string, unknown>;
    const children = (type as unknown as { children: { name: string; type: DataType }[] }).children;
    expect(children.map((c) => c.name).sort(), at).toEqual(Object.keys(json).sort());
    return children.reduce(
      (n, c) => n + expectSame(row[c.name], (json as Body)[c.name], c.type, `${at}.${c.name}`),
      0,
    );
  }
  if (DataType.isList(type)) {
    const list = value as Vector;
    const element = (type as unknown as { children: { type: DataType }[] }).children[0]!.type;
    expect(list.length, at).toBe((json as unknown[]).length);
    let n = 0;
    for (let i = 0; i < list.length; i++)
      n += expectSame(list.get(i), (json as unknown[])[i], element, `${at}[${i}]`);
    return n;
  }
  if (DataType.isInt(type) && type.bitWidth === 64) expect(value, at).toBe(BigInt(json as number));
  else if (DataType.isDate(type))
    expect(new Date(value as number).toISOString().slice(0, 10), at).toBe(json);
  else if (DataType.isTimestamp(type))
    expect(new Date(value as number).toISOString(), at).toBe(
      new Date(json as string).toISOString(),
    );
  else if (DataType.isUtf8(type) && typeof json === 'object')
    expect(JSON.parse(value as string), at).toEqual(json);
  else expect(value, at).toBe(json);
  return 1;
}

/** The answer without the array at `path`. */
function withoutRows(answer: Body, path: string[]): Body {
  const [key, ...rest] = path;
  const { [key!]: inner, ...others } = answer;
  return rest.length === 0 ? others : { ...others, [key!]: withoutRows(inner as Body, rest) };
}

describe('Arrow answers of the lists and reports', () => {
  let h: Harness;
  let payouts: Workspace;
  let doc: Body;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(snapshot());
    payouts = payoutWorkspace();
    await h.importObject(payouts.snapshot);
    await h.sync();
    doc = (await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<Body>();
  });
  afterAll(() => h.close());

  const get = (url: string, accept: string | undefined, token: string = TOKENS.owner) =>
    h.app.inject({
      method: 'GET',
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${token}`, ...(accept ? { accept } : {}) },
    });

  /** The same request as JSON and as Arrow; the Arrow table read back with apache-arrow. */
  async function both(url: string, token: string = TOKENS.owner) {
    const json = await get(url, 'application/json', token);
    expect(json.statusCode, `${url}: ${json.body}`).toBe(200);
    const arrow = await get(url, ARROW, token);
    expect(arrow.statusCode, `${url}: ${arrow.body}`).toBe(200);
    expect(arrow.headers['content-type']).toBe(ARROW);
    return { json, arrow, body: json.json<Body>(), table: tableFromIPC(arrow.rawPayload) };
  }

  /** Every row and field of the table against the JSON answer, and the rest in its metadata. */
  function expectTableIsAnswer(table: Table, body: Body): { rows: Body[]; leaves: number } {
    const path = table.schema.metadata.get('ledgerline.rows')!.split('.');
    const rows = path.reduce<Body>((at, key) => at[key] as Body, body) as unknown as Body[];
    expect(table.numRows).toBe(rows.length);
    const meta = JSON.parse(table.schema.metadata.get('ledgerline.meta')!) as Body;
    expect(meta).toEqual(withoutRows(body, path));
    let leaves = 0;
    rows.forEach((row, i) => {
      const arrowRow = table.get(i)!.toJSON() as Record<string, unknown>;
      expect(table.schema.fields.map((f) => f.name)).toEqual(Object.keys(row));
      for (const f of table.schema.fields)
        leaves += expectSame(arrowRow[f.name], row[f.name], f.type, `[${i}].${f.name}`);
    });
    return { rows, leaves };
  }

  it('answers every list and report of the document in both forms, the same values', async () => {
    const tabular = Object.entries(doc.paths as Body)
      .filter(([, item]) => item.get?.responses['200'].content[ARROW])
      .map(([path]) => path);
    expect(tabular.sort()).toEqual([
      '/clients',
      '/invoices',
      '/projects',
      '/team-payouts/bills',
      '/team-payouts/payees',
      '/team-payouts/payments',
      '/team-payouts/profitability',
      '/team-payouts/summary',
      '/team-payouts/unpaid-time',
    ]);
    const query: Record<string, string> = {
      '/team-payouts/profitability': '?from=2026-10-01&to=2026-10-31',
    };
    const compared = new Map<string, number>();
    for (const token of [TOKENS.owner, payouts.token])
      for (const path of tabular) {
        const { json, arrow, body, table } = await both(`${path}${query[path] ?? ''}`, token);
        // An empty page is a table too: its columns, no rows.
        const { leaves } = expectTableIsAnswer(table, body);
        compared.set(path, (compared.get(path) ?? 0) + leaves);
        for (const header of ['x-data-as-of', 'ratelimit-limit', 'ratelimit-policy'])
          expect(arrow.headers[header], `${path} ${header}`).toBe(json.headers[header]);
        expect(arrow.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
        expect(arrow.headers.vary).toBe('Accept');
      }
    // Every endpoint had rows in one of the two workspaces, each with fields beyond the id.
    for (const path of tabular) expect(compared.get(path), path).toBeGreaterThan(10);
  });

  it('writes money as Decimal128 at the largest scale of the page, exactly past 2^53', async () => {
    const { body, table } = await both('/clients?sort=name');
    const rate = table.schema.fields.find((f) => f.name === 'defaultRate')!.type as Decimal;
    // USD 120.50, JPY 15000, KWD 1.125, EUR 99999999999999.99 on one page: KWD's three decimals.
    expect(rate).toBeInstanceOf(Decimal);
    expect([rate.precision, rate.scale, rate.bitWidth]).toEqual([38, 3, 128]);
    const byName = new Map<string, unknown>();
    const rates = table.getChild('defaultRate')!;
    (body.data as Body[]).forEach((c, i) =>
      byName.set(
        c.name as string,
        rates.get(i) === null ? null : decimalText(String(rates.get(i)), 3),
      ),
    );
    expect(byName.get(`${ODD} JPY`)).toBe('15000.000');
    expect(byName.get(`${ODD} KWD`)).toBe('1.125');
    expect(byName.get(`${ODD} EUR`)).toBe('99999999999999.990');
    expect(byName.get('Globex')).toBe('120.500');
    expect(byName.get('Negative none')).toBeNull();
    // The names come back as they were sent, separators, line breaks and emoji included.
    expect(table.getChild('name')!.toArray() as unknown).toEqual(
      (body.data as Body[]).map((c) => c.name as string),
    );
    expect(table.getChild('name')!.toArray() as unknown).toContain(`${ODD} EUR`);

    // One currency alone on a page: its own scale (JPY 0).
    const yen = await both('/clients?currency=JPY');
    expect(
      (yen.table.schema.fields.find((f) => f.name === 'defaultRate')!.type as Decimal).scale,
    ).toBe(0);
    expect(String(yen.table.getChild('defaultRate')!.get(0))).toBe('15000');
  });

  it('types the columns from the route schema: ints, booleans, dates, timestamps, enums, lists', async () => {
    const { table } = await both('/team-payouts/bills');
    const types = Object.fromEntries(table.schema.fields.map((f) => [f.name, String(f.type)]));
    expect(types).toMatchObject({
      id: 'Utf8',
      createdAt: 'Timestamp<MILLISECOND, UTC>',
      currency: 'Utf8',
      status: 'Dictionary<Int32, Utf8>',
      total: expect.stringMatching(/^Decimal\[38e\+\d\]$/),
    });
    expect(types.lines).toMatch(/^List<Struct</);
    const clients = await both('/clients');
    const field = (name: string) => clients.table.schema.fields.find((f) => f.name === name)!;
    expect(String(field('requirePoNumber').type)).toBe('Bool');
    expect(field('deletedAt').nullable).toBe(true);
    expect(field('id').nullable).toBe(false);
    const unpaid = await both('/team-payouts/unpaid-time', payouts.token);
    const unpaidTypes = Object.fromEntries(
      unpaid.table.schema.fields.map((f) => [f.name, String(f.type)]),
    );
    expect(Object.values(unpaidTypes)).toContain('Int64');
    expect(Object.values(unpaidTypes)).toContain('Date32<DAY>');
  });

  it('keeps the rest of a paged list in the metadata: the next cursor reads the next page', async () => {
    const first = await both('/clients?limit=2&sort=name');
    const meta = JSON.parse(first.table.schema.metadata.get('ledgerline.meta')!) as Body;
    expect(meta.pagination.limit).toBe(2);
    expect(typeof meta.pagination.nextCursor).toBe('string');
    const next = await both(
      `/clients?limit=2&sort=name&cursor=${encodeURIComponent(meta.pagination.nextCursor as string)}`,
    );
    expect(next.table.numRows).toBe(2);
    expectTableIsAnswer(next.table, next.body);
  });

  it('reads the Accept header by quality; JSON is the default', async () => {
    const typeOf = async (accept: string | undefined) =>
      (await get('/clients', accept)).headers['content-type'];
    expect(await typeOf(undefined)).toContain('application/json');
    expect(await typeOf('*/*')).toContain('application/json');
    expect(await typeOf(`application/json, ${ARROW}`)).toContain('application/json');
    expect(await typeOf(`application/json;q=0.5, ${ARROW}`)).toBe(ARROW);
    expect(await typeOf(`${ARROW}, */*;q=0.1`)).toBe(ARROW);
    expect(await typeOf('application/*')).toContain('application/json');
    expect(await typeOf(`${ARROW};q=0.9, application/json;q=0.8`)).toBe(ARROW);
    expect((await get('/clients', 'text/csv')).statusCode).toBe(406);
  });

  it('answers 406 where there is no Arrow answer, before any write or lookup', async () => {
    for (const url of ['/me', `/invoices/${ids.invoice}`, `/team-payouts/bills/${ids.bill}`]) {
      const res = await get(url, ARROW);
      expect(res.statusCode, url).toBe(406);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.json<Body>().error).toMatchObject({ code: 'not_acceptable' });
    }
    // Asked for JSON too, the record is answered as JSON.
    expect(
      (await get(`/invoices/${ids.invoice}`, `${ARROW}, application/json;q=0.5`)).statusCode,
    ).toBe(200);
    const before = (await get('/clients?limit=200', undefined)).json<Body>().data.length as number;
    const post = await h.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${TOKENS.owner}`, accept: ARROW },
      payload: { name: 'Never written' },
    });
    expect(post.statusCode).toBe(406);
    expect((await get('/clients?limit=200', undefined)).json<Body>().data).toHaveLength(before);
  });

  it('answers errors as JSON whatever Accept asks for', async () => {
    const cases: [string, string, number, string][] = [
      ['/clients', 'tt_test_Nobody000001_abcdefghijklmnopqrstuvwxyz012345', 401, 'unauthenticated'],
      ['/clients', TOKENS.member, 403, 'forbidden_scope'],
      ['/clients?limit=0', TOKENS.owner, 422, 'validation_failed'],
      ['/team-payouts/bills?nope=1', TOKENS.owner, 422, 'invalid_query'],
      [
        '/team-payouts/profitability?from=2026-10-31&to=2026-10-01',
        TOKENS.owner,
        422,
        'validation_failed',
      ],
      [
        `/team-payouts/bills/${'f'.repeat(8)}-0000-4000-8000-000000000000`,
        TOKENS.owner,
        404,
        'not_found',
      ],
    ];
    for (const [url, token, status, code] of cases) {
      const accept = status === 404 ? `${ARROW}, application/json;q=0.1` : ARROW;
      const res = await get(url, accept, token);
      expect(res.statusCode, url).toBe(status);
      expect(res.headers['content-type'], url).toContain('application/json');
      expect(res.json<Body>().error.code, url).toBe(code);
    }
  });

  it('documents both media types of a list and the 406 of every JSON route', () => {
    const clients = doc.paths['/clients'].get.responses;
    expect(Object.keys(clients['200'].content).sort()).toEqual(['application/json', ARROW]);
    expect(clients['200'].content[ARROW].schema).toEqual({ type: 'string', format: 'binary' });
    expect(
      clients['406'].content['application/json'].schema.properties.error.properties.code.enum,
    ).toEqual(['not_acceptable']);
    expect(Object.keys(doc.paths['/me'].get.responses['200'].content)).toEqual([
      'application/json',
    ]);
    expect(doc.paths['/me'].get.responses).toHaveProperty('406');
    expect(doc.paths['/exports/{report}'].get.responses).not.toHaveProperty('406');
  });
});
