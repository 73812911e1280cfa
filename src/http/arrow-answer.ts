import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { notAcceptable } from '../api/errors.ts';
import { tableRows } from '../api/table-answer.ts';
import type { arrowStream as ArrowStream } from './arrow-table.ts';

// Content negotiation of the API's JSON answers (docs/api.md, "Arrow answers"). A list or
// report (its declared 200 schema marked by answersAsTable) answers an Arrow IPC stream when
// the Accept header prefers it; every other answer, and every error, is JSON. A route
// negotiates when it declares the 406 (route-schema.ts `responses` adds it to JSON answers).

export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';
const JSON_TYPE = 'application/json';

/** Requests answered as Arrow, with the path of their rows. */
const ARROW_ANSWERS = new WeakMap<FastifyRequest, readonly string[]>();

// apache-arrow is 145 of the 730 modules a server loads (0.1-0.4 s of its start): loaded at the
// first Arrow answer instead (docs/sync.md, "Start-up").
let arrowTable: Promise<{ arrowStream: typeof ArrowStream }> | undefined;

/**
 * Registers the negotiation: after the access checks (401, 402, 403 come first) and before the
 * input (404, 422), a request whose Accept admits none of the route's media types is 406; the
 * rows of an Arrow answer are written by `onSend` from the JSON the route answered. Register it
 * after the response check, so that a test's JSON is checked before it becomes a table.
 */
export function registerArrowAnswers(app: FastifyInstance): void {
  app.addHook('preValidation', async (request, reply) => {
    const declared = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
    if (declared?.[406] === undefined) return;
    const rows = request.method === 'GET' ? tableRows(declared[200]) : undefined;
    const offered = rows === undefined ? [JSON_TYPE] : [JSON_TYPE, ARROW_STREAM];
    const chosen = negotiate(request.headers.accept, offered);
    if (chosen === undefined) throw notAcceptable(offered);
    if (rows === undefined) return;
    void reply.header('Vary', 'Accept');
    if (chosen === ARROW_STREAM) ARROW_ANSWERS.set(request, rows);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const rows = ARROW_ANSWERS.get(request);
    // Errors stay JSON, whatever Accept says.
    if (rows === undefined || reply.statusCode !== 200 || typeof payload !== 'string')
      return payload;
    const declared = request.routeOptions.schema!.response as Record<number, z.ZodType>;
    const { arrowStream } = await (arrowTable ??= import('./arrow-table.ts'));
    const stream = arrowStream(
      declared[200]!,
      rows,
      JSON.parse(payload) as Record<string, unknown>,
    );
    void reply.header('Content-Type', ARROW_STREAM);
    return Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  });
}

interface MediaRange {
  type: string;
  q: number;
}

const RANGE = /^([\w.+-]+|\*)\/([\w.+-]+|\*)$/;
const QUALITY = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;

/** The ranges of an Accept header; malformed ones are left out (RFC 9110, 12.5.1). */
function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim());
    const type = range.toLowerCase();
    if (!RANGE.test(type) || (type.startsWith('*/') && type !== '*/*')) continue;
    const quality = params.map((p) => QUALITY.exec(p)).find((m) => m !== null);
    ranges.push({ type, q: quality ? Number(quality[1]) : 1 });
  }
  return ranges;
}

/** 2 for the type itself, 1 for `type/*`, 0 for `*\/*`, -1 when the range does not match. */
function specificity(range: string, type: string): number {
  if (range === type) return 2;
  if (range === `${type.split('/')[0]}/*`) return 1;
  return range === '*/*' ? 0 : -1;
}

/**
 * The media type of `offered` the Accept header prefers: the highest quality, each type rated
 * by its most specific range; a tie goes to the more specific range, then to the first
 * offered (JSON, the default). No header, or none that parses, takes the first. Undefined
 * when every offered type is refused (q=0) or matches no range: 406.
 */
export function negotiate(
  accept: string | undefined,
  offered: readonly string[],
): string | undefined {
  const ranges = accept === undefined ? [] : mediaRanges(accept);
  if (ranges.length === 0) return offered[0];
  let best: { type: string; q: number; specificity: number } | undefined;
  for (const type of offered) {
    let match: { q: number; specificity: number } | undefined;
    for (const range of ranges) {
      const s = specificity(range.type, type);
      if (s > (match?.specificity ?? -1)) match = { q: range.q, specificity: s };
    }
    if (match === undefined || match.q === 0) continue;
    if (
      best === undefined ||
      match.q > best.q ||
      (match.q === best.q && match.specificity > best.specificity)
    )
      best = { type, ...match };
  }
  return best?.type;
}
