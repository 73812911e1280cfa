import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api/errors.ts';
import { JsonNumber } from '../api/json-number.ts';

/**
 * Parses JSON text like JSON.parse, except that every number becomes a JsonNumber holding
 * its literal. Throws SyntaxError for invalid JSON.
 */
export function parseJsonLosslessly(text: string): unknown {
  // Number literals are rewritten as strings carrying a mark no caller can guess, and
  // turned back into JsonNumbers as they are parsed.
  const mark = `\\u0000${randomBytes(6).toString('hex')}:`;
  const decodedMark = JSON.parse(`"${mark}"`) as string;
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22)
        i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i < text.length && /[-+.eE0-9]/.test(text[i]!)) i++;
      out += `${text.slice(from, start)}"${mark}${text.slice(start, i)}"`;
      from = i;
    } else {
      i++;
    }
  }
  out += text.slice(from);
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(decodedMark)) return value;
    const literal = value.slice(decodedMark.length);
    // The literal must be a JSON number on its own (JSON.parse checks the grammar).
    if (typeof JSON.parse(literal) !== 'number') throw new SyntaxError('Invalid number');
    return new JsonNumber(literal);
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A JSON body as sent, for idempotency checks. */
    rawBody?: string;
  }
}

/**
 * JSON bodies are parsed losslessly (numbers stay text) and their text is kept on the
 * request. Invalid or empty JSON is 400 `malformed_json`.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // JSON only: any other body (text/plain included) is 415 unsupported_media_type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    try {
      if (text.trim() === '') throw new SyntaxError('empty');
      done(null, parseJsonLosslessly(text));
    } catch {
      done(new ApiError('malformed_json', 'The request body is not valid JSON.'), undefined);
    }
  });
}
