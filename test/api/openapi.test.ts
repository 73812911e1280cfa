import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredApiRoutes } from '../support/api-routes.ts';
import { createHarness, type Harness } from '../support/harness.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is checked by value
type Doc = Record<string, any>;

const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

/** Every operation of the document, with its path and method. */
function operations(doc: Doc): { path: string; method: string; op: Doc }[] {
  return Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op: op as Doc })),
  );
}

/** Every schema object in the document, with where it is. */
function schemas(node: unknown, at: string, out: { at: string; schema: Doc }[] = []) {
  if (Array.isArray(node)) node.forEach((child, i) => schemas(child, `${at}/${i}`, out));
  else if (node !== null && typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) {
      if (key === 'schema') out.push({ at: `${at}/schema`, schema: child as Doc });
      if (key === 'properties')
        for (const [name, schema] of Object.entries(child as Doc))
          out.push({ at: `${at}/${key}/${name}`, schema: schema as Doc });
      if (key === 'items' || key === 'additionalProperties')
        out.push({ at: `${at}/${key}`, schema: child as Doc });
      if (key === 'anyOf' || key === 'oneOf' || key === 'allOf')
        (child as Doc[]).forEach((schema, i) => out.push({ at: `${at}/${key}/${i}`, schema }));
      schemas(child, `${at}/${key}`, out);
    }
  }
  return out;
}

describe('OpenAPI document and docs page', () => {
  let h: Harness;
  let doc: Doc;
  beforeAll(async () => {
    h = await createHarness();
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json<Doc>();
  });
  afterAll(() => h.close());

  it('is public OpenAPI 3.1 naming every route the server answers, and only those', () => {
    expect(doc.openapi).toBe('3.1.0');
    const documented = operations(doc)
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(documented).toEqual(registeredApiRoutes(h.app));
    expect(documented.length).toBeGreaterThanOrEqual(23);
  });

  it('gives every operation its success, the errors every route has, and the bearer scheme', () => {
    expect(doc.components.securitySchemes.bearer).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    expect(doc.security).toEqual([{ bearer: [] }]);
    for (const { path, method, op } of operations(doc)) {
      const statuses = Object.keys(op.responses);
      expect(
        statuses.some((s) => s.startsWith('2')),
        `${method} ${path}`,
      ).toBe(true);
      for (const status of ['401', '402', '403', '429', '500'])
        expect(statuses, `${method} ${path}`).toContain(status);
      for (const [status, response] of Object.entries(op.responses as Doc)) {
        expect(response.headers, `${method} ${path} ${status}`).toHaveProperty('X-Request-Id');
        if (status.startsWith('2')) continue;
        const code = response.content['application/json'].schema.properties.error.properties.code;
        expect(code.enum.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
      }
      expect(op.responses['429'].headers).toHaveProperty('Retry-After');
    }
    const patch = doc.paths['/time-entries/{id}'].patch;
    expect(
      patch.responses['422'].content['application/json'].schema.properties.error.properties.code
        .enum,
    ).toEqual(['validation_failed', 'duration_conflict']);
    expect(doc.paths['/clients'].post.responses['201'].headers).toHaveProperty(
      'Idempotent-Replayed',
    );
    expect(doc.paths['/exports/{report}'].get.responses['200'].headers).toHaveProperty(
      'X-Export-SHA256',
    );
    expect(doc.paths['/clients'].get.responses['200'].headers).toHaveProperty('X-Data-As-Of');
  });

  it('has no empty schema: every field says what it holds', () => {
    const empty = schemas(doc, '#')
      .filter(({ schema }) => typeof schema === 'object' && Object.keys(schema).length === 0)
      .map(({ at }) => at);
    expect(empty).toEqual([]);
    const client = doc.paths['/clients'].post.requestBody.content['application/json'].schema;
    expect(client.properties.defaultRate.anyOf).toEqual([
      {
        anyOf: [
          expect.objectContaining({ type: 'string', pattern: expect.any(String) }),
          { type: 'number' },
        ],
      },
      { type: 'null' },
    ]);
    const entry = doc.paths['/time-entries/{id}'].patch.requestBody.content['application/json'];
    expect(entry.schema.properties.durationSeconds).toEqual({ type: 'integer' });
  });

  it('types every query parameter as what it is', () => {
    const parameters = operations(doc).flatMap(({ op }) =>
      ((op.parameters ?? []) as Doc[]).filter((p) => p.in === 'query'),
    );
    expect(parameters.length).toBeGreaterThan(100);
    for (const p of parameters) {
      const s = p.schema as Doc;
      const bare = s.type === 'string' && !s.enum && !s.format && !s.pattern && !s.maxLength;
      // Free text has a bound or is the opaque cursor; everything else has a type beyond text.
      expect(bare && p.name !== 'cursor', `${p.name}: ${JSON.stringify(s)}`).toBe(false);
    }
    const param = (path: string, name: string) =>
      (doc.paths[path].get.parameters as Doc[]).find((p) => p.name === name)!.schema as Doc;
    expect(param('/clients', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    const profitability = '/team-payouts/profitability';
    expect(param(profitability, 'perPage')).toMatchObject({ type: 'integer', maximum: 100 });
    expect(param(profitability, 'page')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param(profitability, 'view').enum).toEqual(['work']);
    expect(param(profitability, 'from').format).toBe('date');
    expect(param('/team-payouts/unpaid-time', 'scope').enum).toEqual(['default', 'all']);
    expect(param('/exports/{report}', 'format').enum).toEqual(['csv', 'ndjson', 'parquet']);
    expect(param('/clients', 'sort').enum).toContain('-createdAt');
    expect(param('/team-payouts/bills', 'payeeId').format).toBe('uuid');
    const country = (doc.paths['/clients'].get.parameters as Doc[]).find(
      (p) => p.name === 'country',
    )!;
    expect(country.explode).toBe(true);
    expect(country.schema.type).toBe('array');
  });

  it('documents bodies with their required fields, and idempotency headers', () => {
    const clients = doc.paths['/clients'];
    expect(clients.post.requestBody.content['application/json'].schema.required).toEqual(['name']);
    const expense = doc.paths['/expenses'].post;
    expect(expense.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['clientId', 'description', 'amount', 'expenseDate']),
    );
    const key = (expense.parameters as Doc[]).find((p) => p.name === 'Idempotency-Key')!;
    expect(key.required).toBe(true);
    expect(key.in).toBe('header');
    expect(
      expense.responses['201'].content['application/json'].schema.properties.data.properties,
    ).toHaveProperty('currency');
  });

  it('passes redocly lint with no error and no warning', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc));
      // The recommended rules, none turned off; JSON output counts errors and warnings.
      const { stdout } = await promisify(execFile)(
        'npx',
        ['redocly', 'lint', '--format=json', file],
        {
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      ).catch((error: { stdout: string; stderr: string }) => {
        throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
      });
      const report = JSON.parse(stdout) as { totals: Doc; problems: unknown[] };
      expect(report.problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('serves its page without a token, from its own files (no CDN)', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-initializer.js']) {
      const file = await h.app.inject({ method: 'GET', url: `/api/v1/docs/static/${asset}` });
      expect(file.statusCode, asset).toBe(200);
    }
    const json = await h.app.inject({ method: 'GET', url: '/api/v1/docs/json' });
    expect(json.json<Doc>().paths).toHaveProperty('/clients');
  });
});
