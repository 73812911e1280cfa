import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerResponseCheck } from './response-check.ts';

/** An app whose one route declares `{ name: string }` for 200 and sends what `send` gives. */
async function appSending(status: number, body: unknown) {
  const app = Fastify();
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerResponseCheck(app);
  app.get(
    '/thing',
    { schema: { response: { 200: z.object({ name: z.string() }) } } },
    // The status may be one the route does not declare: that is what is tested.
    async (_request, reply) => reply.code(status as 200).send(body),
  );
  await app.ready();
  return app;
}

describe('the response check of the tests', () => {
  it('passes a response that matches the schema declared for its status', async () => {
    const app = await appSending(200, { name: 'a, "b"\n😀' });
    const res = await app.inject({ method: 'GET', url: '/thing' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'a, "b"\n😀' });
  });

  it('turns a response that differs from its schema into a 500 naming the field', async () => {
    const app = await appSending(200, { name: 42 });
    const res = await app.inject({ method: 'GET', url: '/thing' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ error: { code: 'response_schema_mismatch' } });
    expect(res.json<{ error: { message: string } }>().error.message).toContain('name');
  });

  it('turns a status the route does not declare into a 500', async () => {
    const app = await appSending(404, { name: 'x' });
    const res = await app.inject({ method: 'GET', url: '/thing' });
    expect(res.statusCode).toBe(500);
    expect(res.json<{ error: { message: string } }>().error.message).toContain(
      'status 404 is not declared',
    );
  });
});
