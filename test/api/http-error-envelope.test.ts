import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { rawHttp, type RawAnswer } from '../support/raw-http.ts';
import { smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// Error answers over real HTTP, to requests written byte for byte on a socket: a header or URL
// over Node's limit, bytes that are not HTTP, a body over 1 MiB, a URL that does not decode, an
// overlong path id. Each answer carries the error envelope and its X-Request-Id (the error codes
// of docs/decisions.md). These tests are a part of api-edge-values.test.ts's suite and keep its
// outer describe, so their names are 'values the stores cannot hold > over real HTTP …'.

describe('values the stores cannot hold', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ live: true });
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  describe('over real HTTP, every error answer carries the envelope and X-Request-Id', () => {
    let port: number;
    beforeAll(async () => {
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      port = (h.app.server.address() as AddressInfo).port;
    });

    const raw = (text: string) => rawHttp(port, text);
    const expectEnvelope = (res: RawAnswer, status: number, code: string) => {
      expect(res.status).toBe(status);
      expect(res.body.error).toEqual({
        code,
        message: expect.any(String),
        requestId: expect.any(String),
      });
      expect(res.headers['x-request-id']).toBe(res.body.error.requestId);
    };
    const auth = `Authorization: Bearer ${TOKENS.owner}\r\n`;

    it('answers 431 header_too_large to a 20 KB header and to a 20 KB URL', async () => {
      expectEnvelope(
        await raw(`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
        431,
        'header_too_large',
      );
      expectEnvelope(
        await raw(`GET /api/v1/clients?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
        431,
        'header_too_large',
      );
    });

    it('answers 400 malformed_request to bytes that are not HTTP', async () => {
      expectEnvelope(await raw('HELLO WORLD\r\n\r\n'), 400, 'malformed_request');
    });

    it('answers 413 payload_too_large to a body over 1 MiB', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
      expectEnvelope(
        await raw(
          `POST /api/v1/clients HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\n\r\n${body}`,
        ),
        413,
        'payload_too_large',
      );
    });

    it('answers 400 malformed_request to a URL that does not decode', async () => {
      expectEnvelope(
        await raw(`GET /api/v1/invoices/%E0%A4%A HTTP/1.1\r\nHost: x\r\n${auth}\r\n`),
        400,
        'malformed_request',
      );
    });

    it('routes an overlong path id like any other: 401 without a token, else 404', async () => {
      const path = `/api/v1/invoices/${'a'.repeat(300)}`;
      expectEnvelope(await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`), 401, 'unauthenticated');
      expectEnvelope(await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`), 404, 'not_found');
    });
  });
});
