import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AnswerCache } from '../readmodel/answer-cache.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { todayIn } from '../time/calendar.ts';
import { answerTables, type AnswerReads } from '../api/route-schema.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The routes whose answers are kept (config.answers), by method and URL: their tables. */
    cachedAnswerRoutes: ReadonlyMap<string, AnswerReads>;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** An answer being read: its key, and where its tables stood before (AnswerCache.stamp). */
const READING = new WeakMap<
  FastifyRequest,
  { key: string; tables: readonly string[]; stamp: string }
>();

/**
 * Serves the GETs of routes that declare `config.answers` from `cache` (AnswerCache): a kept
 * answer is sent before the handler, which then does not run; otherwise the handler's 200
 * answer (its JSON text, before an Arrow answer is made of it) is kept. It runs after the data
 * position's wait (src/http/data-position.ts): by then the read model's commits that the
 * request waited for have dropped what they changed. Register it after that, and before the
 * Arrow answers.
 *
 * The key is the request's URL (path and query) and everything of the caller an answer can
 * depend on: workspace, user, role, plan, base currency, scopes, and today's date in the
 * workspace's time zone (the default month of profitability, overdue bills).
 */
export function registerCachedAnswers(
  app: FastifyInstance,
  cache: AnswerCache,
  status: ReadModelStatus,
): void {
  const routes = new Map<string, AnswerReads>();
  app.decorate('cachedAnswerRoutes', routes);
  app.addHook('onRoute', (route) => {
    const rule = route.config?.answers;
    if (rule !== undefined && route.method === 'GET') routes.set(`GET ${route.url}`, rule);
  });

  app.addHook('preHandler', async (request, reply) => {
    const rule = request.routeOptions.config.answers;
    if (rule === undefined || request.method !== 'GET' || !status.ready) return;
    const key = answerKey(request);
    const reads = answerTables(rule, Object.keys(request.query as object));
    const text = cache.get(key);
    if (text !== undefined) {
      void reply.type(JSON_TYPE).send(text);
      return reply;
    }
    READING.set(request, { key, tables: reads, stamp: cache.stamp(reads) });
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const reading = READING.get(request);
    if (reading && reply.statusCode === 200 && typeof payload === 'string')
      cache.keep(reading.key, reading.tables, reading.stamp, payload);
    return payload;
  });
}

function answerKey(request: FastifyRequest): string {
  const caller = request.caller;
  return JSON.stringify([
    request.url,
    caller.workspaceId,
    caller.userId,
    caller.role,
    caller.plan,
    caller.baseCurrency,
    [...caller.scopes].sort(),
    todayIn(caller.timezone),
  ]);
}
