import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBConnection, type DuckDBPreparedStatement, type DuckDBValue } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTables } from '../../src/api/route-schema.ts';
import { DERIVED_TABLES } from '../../src/cli/derived-tables.ts';
import { readModelTables } from '../../src/sync/full-sync.ts';
import { createHarness, type Harness } from '../support/harness.ts';

const DEMO = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../fixtures/demo.json'), 'utf8'),
) as {
  tokens: { token: string; userId: string }[];
  members: { userId: string; role: string }[];
  clients: { id: string }[];
  projects: { id: string }[];
  invoices: { id: string }[];
  bills: { id: string; payeeId: string }[];
  timeEntries: { id: string; durationSeconds: number; invoiceId: string | null }[];
  payments: { id: string }[];
  payees: { id: string; userId: string | null }[];
};
const roleToken = (role: string) => {
  const userId = DEMO.members.find((m) => m.role === role)!.userId;
  return DEMO.tokens.find((t) => t.userId === userId)!.token;
};
const OWNER = roleToken('OWNER');
const MEMBER = roleToken('MEMBER');
const MEMBER_USER = DEMO.members.find((m) => m.role === 'MEMBER')!.userId;

/**
 * Requests of each cached route (by its method and pattern), with the filters, sorts and
 * searches that make its statements read other tables; a list's next page is asked too.
 */
const SAMPLES: Record<string, string[]> = {
  'GET /api/v1/clients': [
    '/clients',
    '/clients?search=globex&sort=relevance',
    '/clients?country=US&currency=USD&hasBillingEmail=true&hasBillingContact=true&hasBillingAddress=false&sort=name&limit=1',
  ],
  'GET /api/v1/projects': [
    '/projects',
    '/projects?search=checkout',
    `/projects?clientName=glob&clientId=${DEMO.clients[0]!.id}&memberId=${MEMBER_USER}&status=ACTIVE&rateType=HOURLY&timeline=dated&budget=present&sort=dueDate&limit=1`,
  ],
  'GET /api/v1/invoices': [
    '/invoices',
    '/invoices?search=design',
    `/invoices?clientName=glob&clientId=${DEMO.clients[0]!.id}&currency=USD&status=SENT&status=PAID&paymentStatus=unpaid&recurring=false&viewed=true&sort=-total&limit=1`,
  ],
  'GET /api/v1/invoices/:id': DEMO.invoices.map((i) => `/invoices/${i.id}`),
  'GET /api/v1/team-payouts/bills': [
    '/team-payouts/bills',
    `/team-payouts/bills?payeeId=${DEMO.bills[0]!.payeeId}&currency=EUR&clientId=${DEMO.clients[0]!.id}&projectId=${DEMO.projects[0]!.id}&from=2026-09-01&to=2026-12-31&status=APPROVED&paymentStatus=PARTIALLY_PAID&outstandingOnly=true&overdueOnly=true&sort=-amountPaid&limit=1`,
  ],
  'GET /api/v1/team-payouts/bills/:id': DEMO.bills.map((b) => `/team-payouts/bills/${b.id}`),
  'GET /api/v1/team-payouts/payments': [
    '/team-payouts/payments',
    '/team-payouts/payments?currency=EUR&sort=-amount&limit=1',
  ],
  'GET /api/v1/team-payouts/payments/:id': DEMO.payments.map(
    (p) => `/team-payouts/payments/${p.id}`,
  ),
  'GET /api/v1/team-payouts/payees': [
    '/team-payouts/payees',
    `/team-payouts/payees?userId=${DEMO.payees.find((p) => p.userId)!.userId}&currency=EUR&sort=name&limit=1`,
  ],
  'GET /api/v1/team-payouts/payees/:id': DEMO.payees.map((p) => `/team-payouts/payees/${p.id}`),
  'GET /api/v1/team-payouts/unpaid-time': [
    '/team-payouts/unpaid-time',
    '/team-payouts/unpaid-time?scope=all&currency=EUR&limit=1',
  ],
  'GET /api/v1/team-payouts/summary': [
    '/team-payouts/summary',
    '/team-payouts/summary?currency=EUR',
  ],
  'GET /api/v1/team-payouts/profitability': [
    '/team-payouts/profitability?from=2026-09-01&to=2026-11-30',
    `/team-payouts/profitability?from=2026-10-03&to=2026-10-20&userId=${MEMBER_USER}&projectId=${DEMO.projects[0]!.id}&clientId=${DEMO.clients[0]!.id}`,
    '/team-payouts/profitability?from=2026-09-15&to=2026-11-05&perPage=1&page=2',
    '/team-payouts/profitability?from=2026-09-15&to=2026-11-05&projects=none',
  ],
  'GET /api/v1/team-payouts/profitability/series': [
    '/team-payouts/profitability/series?from=2025-12-01&to=2026-11-30',
    `/team-payouts/profitability/series?from=2026-09-03&to=2026-11-20&interval=week&userId=${MEMBER_USER}&projectId=${DEMO.projects[0]!.id}&clientId=${DEMO.clients[0]!.id}`,
  ],
};

/** Statements run on read-model connections while `work` runs, with their values. */
async function statementsOf(
  work: () => Promise<unknown>,
): Promise<{ sql: string; values: Record<string, DuckDBValue> }[]> {
  type Values = Record<string, DuckDBValue>;
  const seen: { sql: string; values: Values }[] = [];
  // The methods the read paths use (src/readmodel/read-all.ts), wrapped for the time of `work`.
  const proto = DuckDBConnection.prototype;
  const original = {
    runAndReadAll: Object.getOwnPropertyDescriptor(proto, 'runAndReadAll')!,
    run: Object.getOwnPropertyDescriptor(proto, 'run')!,
    prepare: Object.getOwnPropertyDescriptor(proto, 'prepare')!,
  };
  const wrap = (name: keyof typeof original, record: (args: unknown[]) => void) => {
    const method = original[name].value as (...args: unknown[]) => unknown;
    Object.defineProperty(proto, name, {
      ...original[name],
      value: function (this: DuckDBConnection, ...args: unknown[]) {
        record(args);
        return method.apply(this, args);
      },
    });
  };
  const statement = ([sql, values]: unknown[]) =>
    seen.push({ sql: sql as string, values: (values ?? {}) as Values });
  wrap('runAndReadAll', statement);
  wrap('run', statement);
  const prepare = original.prepare.value as (sql: string) => Promise<DuckDBPreparedStatement>;
  Object.defineProperty(proto, 'prepare', {
    ...original.prepare,
    value: async function (this: DuckDBConnection, sql: string) {
      const prepared = await prepare.call(this, sql);
      const entry: { sql: string; values: Values } = { sql, values: {} };
      seen.push(entry);
      const bind = prepared.bind.bind(prepared);
      prepared.bind = (values: Values) => {
        entry.values = values;
        bind(values);
      };
      return prepared;
    },
  });
  try {
    await work();
  } finally {
    for (const [name, descriptor] of Object.entries(original))
      Object.defineProperty(proto, name, descriptor);
  }
  return seen;
}

/** Every table a plan names, searched through the JSON of EXPLAIN. */
function planTables(plan: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(plan)) for (const item of plan) planTables(item, into);
  else if (plan !== null && typeof plan === 'object') {
    for (const [key, value] of Object.entries(plan)) {
      if (key === 'Table' && typeof value === 'string') into.add(value.split('.').at(-1)!);
      else planTables(value, into);
    }
  }
  return into;
}

describe('cached answers: what each route declares it reads', () => {
  let h: Harness;
  let copied: Set<string>;
  let duck: DuckDBConnection;

  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(JSON.parse(readFileSync(path.resolve('fixtures/demo.json'), 'utf8')));
    await h.sync();
    duck = await h.readModel.connect();
    copied = new Set((await readModelTables(duck, DERIVED_TABLES)).keys());
    // The plan before the optimizers: every table the statement names, even one a filter of
    // this request plans away.
    await duck.run("SET explain_output = 'all'");
  });
  afterAll(async () => {
    duck.closeSync();
    await h.close();
  });

  /** The copied tables a statement reads, a derived table (or column) counting as its sources. */
  async function copiedTablesRead(sql: string, values: Record<string, DuckDBValue>) {
    const statement = sql.trim();
    if (!/^(SELECT|WITH|FROM|\()/i.test(statement)) return [];
    const explain = await duck.prepare(`EXPLAIN (FORMAT json) ${statement}`);
    if (Object.keys(values).length > 0) explain.bind(values);
    const rows = (await explain.runAndReadAll()).getRows();
    explain.destroySync();
    const logical = rows.find(([key]) => key === 'logical_plan')![1];
    const tables = new Set<string>();
    for (const table of planTables(JSON.parse(String(logical)), new Set())) {
      for (const part of DERIVED_TABLES) part.sources[table]?.forEach((t) => tables.add(t));
      if (copied.has(table)) tables.add(table);
    }
    return [...tables];
  }

  it('names the sources of every table a derived part writes', () => {
    for (const part of DERIVED_TABLES)
      expect(Object.keys(part.sources).sort(), part.name).toEqual(
        [...part.tables, ...(part.derivedColumns?.keys() ?? [])].sort(),
      );
  });

  it('every cached route has samples here', () => {
    expect([...h.app.cachedAnswerRoutes.keys()].sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(Object.entries(SAMPLES))(
    '%s reads only the tables it declares, for every caller',
    async (route, urls) => {
      const rule = h.app.cachedAnswerRoutes.get(route)!;
      /** Each caller's answer to `url`; the tables read beyond the declared ones. */
      const ask = async (url: string): Promise<{ undeclared: string[]; nextCursor?: string }> => {
        const declared = answerTables(rule, new URL(url, 'http://x').searchParams.keys());
        const undeclared = new Set<string>();
        let nextCursor: string | undefined;
        let answered = 0;
        for (const { token } of DEMO.tokens) {
          let res!: Awaited<ReturnType<typeof h.app.inject>>;
          const statements = await statementsOf(async () => {
            res = await h.app.inject({
              method: 'GET',
              url: `/api/v1${url}`,
              headers: { authorization: `Bearer ${token}` },
            });
          });
          // Roles the route refuses (403), or whose cursor is another caller's (422), read nothing.
          if (res.statusCode === 403 || (res.statusCode === 422 && url.includes('cursor=')))
            continue;
          expect(res.statusCode, res.body).toBe(200);
          answered++;
          if (token === OWNER)
            nextCursor =
              (res.json<{ nextCursor?: string | null }>().nextCursor ?? undefined) || undefined;
          for (const { sql, values } of statements)
            for (const table of await copiedTablesRead(sql, values))
              if (!declared.includes(table)) undeclared.add(table);
        }
        expect(answered, url).toBeGreaterThan(0);
        return { undeclared: [...undeclared].sort(), ...(nextCursor ? { nextCursor } : {}) };
      };
      for (const url of urls) {
        const answer = await ask(url);
        expect(answer.undeclared, url).toEqual([]);
        if (answer.nextCursor !== undefined) {
          const next = `${url}${url.includes('?') ? '&' : '?'}cursor=${answer.nextCursor}`;
          expect((await ask(next)).undeclared, next).toEqual([]);
        }
      }
    },
  );
});

describe('cached answers through the API (logical replication)', () => {
  let h: Harness;
  const send = (method: 'GET' | 'PATCH', url: string, token = OWNER, body?: object) =>
    h.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body }),
    });
  /** A GET that must answer 200, and the statements it ran. */
  const read = async (url: string, token = OWNER) => {
    let body = '';
    const statements = await statementsOf(async () => {
      const res = await send('GET', url, token);
      expect(res.statusCode, res.body).toBe(200);
      body = res.body;
    });
    return { body, statements: statements.length };
  };

  beforeAll(async () => {
    h = await createHarness({ live: true });
    await h.importObject(JSON.parse(readFileSync(path.resolve('fixtures/demo.json'), 'utf8')));
    await h.sync();
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers a GET asked again from memory, without a statement', async () => {
    const first = await read('/team-payouts/payees');
    expect(first.statements).toBeGreaterThan(0);
    expect(await read('/team-payouts/payees')).toEqual({ body: first.body, statements: 0 });
  });

  it("answers a write's token with the write, and everyone once the read model has it", async () => {
    const client = DEMO.clients[0]!;
    const before = await read('/clients');
    expect((await read('/clients', roleToken('ADMIN'))).statements).toBeGreaterThan(0);
    const res = await send('PATCH', `/clients/${client.id}`, OWNER, {
      name: 'Globex Corporation',
      notes: 'kept answers follow their tables',
    });
    expect(res.statusCode, res.body).toBe(200);
    // The writer's next read waits for its write (docs/api.md, Data positions).
    const after = await read('/clients');
    expect(after.body).not.toBe(before.body);
    expect(after.body).toContain('kept answers follow their tables');
    await h.passed(res);
    expect((await read('/clients', roleToken('ADMIN'))).body).toContain(
      'kept answers follow their tables',
    );
  });

  it('keeps an answer through a write to a table it does not read', async () => {
    const payees = await read('/team-payouts/payees');
    const summary = await read('/team-payouts/summary');
    let patched = false;
    for (const entry of DEMO.timeEntries.filter((e) => e.invoiceId === null)) {
      const res = await send('PATCH', `/time-entries/${entry.id}`, OWNER, {
        durationSeconds: entry.durationSeconds + 60,
      });
      if (res.statusCode !== 200) continue;
      await h.passed(res);
      patched = true;
      break;
    }
    expect(patched).toBe(true);
    expect(await read('/team-payouts/payees')).toEqual({ body: payees.body, statements: 0 });
    // The summary reads time_entries: computed again.
    expect((await read('/team-payouts/summary')).statements).toBeGreaterThan(0);
    expect(summary.statements).toBeGreaterThan(0);
  });

  it("keeps each caller's answer apart: a Member's projects are not the Owner's", async () => {
    const owner = await read('/projects');
    const member = await read('/projects', MEMBER);
    expect(member.statements).toBeGreaterThan(0);
    expect(member.body).not.toBe(owner.body);
    expect((await read('/projects', MEMBER)).body).toBe(member.body);
    expect((await read('/projects')).body).toBe(owner.body);
  });

  it('makes an Arrow answer of a kept JSON answer', async () => {
    await read('/team-payouts/payments');
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/v1/team-payouts/payments',
      headers: { authorization: `Bearer ${OWNER}`, accept: 'application/vnd.apache.arrow.stream' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    expect(tableFromIPC(res.rawPayload).numRows).toBe(DEMO.payments.length);
    // The JSON answer kept is still JSON.
    expect(JSON.parse((await read('/team-payouts/payments')).body)).toHaveProperty('data');
  });
});
