import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/http/openapi.ts';
import { createHarness, type Harness } from './support/harness.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is checked by value
type Doc = Record<string, any>;

describe('OpenAPI document and docs page', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('is public OpenAPI 3.1 naming every operation the server answers', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<Doc>();
    expect(doc.openapi).toBe('3.1.0');
    for (const op of OPERATIONS) {
      const url = `/api/v1${op.path.replace(/\{(\w+)\}/g, ':$1')}`;
      expect(h.app.hasRoute({ method: op.method.toUpperCase(), url }), url).toBe(true);
      const documented = doc.paths[op.path][op.method];
      expect(documented.responses).toHaveProperty(String(op.success.status));
      for (const status of ['401', '402', '403', '429', '500'])
        expect(documented.responses, `${op.method} ${op.path}`).toHaveProperty(status);
    }
  });

  it('documents list parameters, bodies with their required fields, and idempotency headers', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<Doc>();
    const clients = doc.paths['/clients'];
    const names = (clients.get.parameters as { name: string }[]).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['cursor', 'limit', 'sort', 'search', 'country', 'createdAtTo']),
    );
    const country = (clients.get.parameters as Doc[]).find((p) => p.name === 'country')!;
    expect(country.explode).toBe(true);
    expect(clients.post.requestBody.content['application/json'].schema.required).toEqual(['name']);
    const expense = doc.paths['/expenses'].post;
    expect(expense.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['clientId', 'description', 'amount', 'expenseDate']),
    );
    const key = (expense.parameters as Doc[]).find((p) => p.name === 'Idempotency-Key')!;
    expect(key.required).toBe(true);
    expect(
      expense.responses['201'].content['application/json'].schema.properties.data.properties,
    ).toHaveProperty('currency');
  });

  it('serves a readable docs page without a token', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('/api/v1/clients');
    expect(res.body).toContain('Idempotency-Key');
  });
});
