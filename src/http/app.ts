import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { ReadModel } from '../readmodel/read-model.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { clientRoutes } from '../api/clients/client.route.ts';
import { webhookRoutes } from '../api/webhooks/webhook.route.ts';
import { expenseRoutes } from '../api/expenses/expense.route.ts';
import { exportRoutes } from '../exports/export.route.ts';
import { taskRoutes } from '../api/tasks/task.route.ts';
import { invoiceRoutes } from '../api/invoices/invoice.route.ts';
import { projectRoutes } from '../api/projects/project.route.ts';
import { timeEntryRoutes } from '../api/time-entries/time-entry.route.ts';
import { payoutSummaryRoutes } from '../reports/payout-summary/payout-summary.route.ts';
import { profitabilityRoutes } from '../reports/profitability/profitability.route.ts';
import { teamPayoutRoutes } from '../reports/team-payouts/team-payouts.route.ts';
import { keepReceivedBody } from '../api/idempotency.ts';
import { checkBeforeInput, validateInput, type RoutePlugin } from '../api/route-schema.ts';
import { loadServerSecret } from '../store/server-secret.ts';
import { CursorCodec } from '../api/list/cursor.ts';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH } from './client-errors.ts';
import type { Database, TokenEnv } from '../store/schema.ts';
import { authenticate } from './auth.ts';
import { TokenUseRecorder } from '../tokens/token.repository.ts';
import type { TokenIdentityCache } from '../tokens/token-identity-cache.ts';
import { ConnectionPool } from '../readmodel/connection-pool.ts';
import { RecordCache } from '../readmodel/record-cache.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { isPublicApiPath, registerOpenApi } from './openapi.ts';
import { registerResponseCheck } from './response-check.ts';
import { registerArrowAnswers } from './arrow-answer.ts';
import { registerCachedAnswers } from './cached-answers.ts';
import { AnswerCache } from '../readmodel/answer-cache.ts';
import { readModelUnavailable } from '../api/errors.ts';
import { registerDataPositions } from './data-position.ts';
import { registerErrorHandling } from './error-handler.ts';
import type { RouteContext } from '../api/route-context.ts';
import { registerHealthRoutes } from './health.route.ts';
import type { WebhookParts } from './webhook-metrics.ts';
import { meRoutes } from './me.route.ts';
import { registerMetrics } from './metrics.ts';
import { readModelMemory } from '../readmodel/read-model-memory.ts';
import { registerDashboard } from './dashboard.route.ts';
import { registerRateLimit, type RateLimitOptions } from './rate-limit.ts';
import type { SyncService } from '../sync/sync-service.ts';

export interface AppDependencies {
  db: Kysely<Database>;
  readModel: ReadModel;
  status: ReadModelStatus;
  tokenEnv: TokenEnv;
  logLevel?: string;
  /**
   * The running sync, for /healthz, /metrics and the data positions reads wait for (absent in
   * tests that sync by hand: then nothing waits).
   */
  sync?: SyncService;
  /** The node's name (NODE_NAME): in /healthz, as a label of every metric, in every log line. */
  nodeName?: string;
  /**
   * The lag (ms) under which the node counts as joined: /healthz answers 503 after a start or
   * a reload until the read model reaches the store's position within it (default 1 s).
   */
  joinLagMs?: number;
  /** The node's webhook producer and sender, for /metrics (src/http/webhook-metrics.ts). */
  webhooks?: WebhookParts;
  /** Whether webhooks may target private addresses (WEBHOOK_ALLOW_PRIVATE; default false). */
  webhookAllowPrivate?: boolean;
  /** How long a GET waits for the data position it needs before 503 (ms; default 10 s). */
  positionWaitMs?: number;
  /**
   * Requests per fixed window per token (docs/contract.md, "Errors"); unset fields take
   * DEFAULT_RATE_LIMIT.
   */
  rateLimit?: Partial<RateLimitOptions>;
  /** Rows kept per list in the record cache (RECORD_CACHE_ROWS; default 50,000). */
  recordCacheRows?: number;
  /**
   * Characters of read-model answers kept (ANSWER_CACHE_MB; default 32 Mi; 0 keeps none):
   * src/http/cached-answers.ts.
   */
  answerCacheChars?: number;
  /** Token identities kept in memory; without it every request reads its token from the store. */
  tokenIdentities?: TokenIdentityCache;
  /**
   * The read model's connections (tests and benchmarks may pass their own); the app makes them
   * when absent, and closes them either way.
   */
  connections?: ConnectionPool;
  /**
   * Check every JSON response against the schema its route declares for its status (the
   * tests turn it on; see response-check.ts).
   */
  validateResponses?: boolean;
  /** The dashboard's built files (src/cli/dashboard-build.ts), served at `/` when given. */
  dashboardDir?: string;
}

export const API_PREFIX = '/api/v1';

/** The route plugins of the API, each a resource or a report. */
const ROUTE_PLUGINS: RoutePlugin[] = [
  meRoutes,
  payoutSummaryRoutes,
  profitabilityRoutes,
  teamPayoutRoutes,
  clientRoutes,
  projectRoutes,
  invoiceRoutes,
  timeEntryRoutes,
  taskRoutes,
  expenseRoutes,
  exportRoutes,
  webhookRoutes,
];

/** Builds the HTTP API. `server.ts` listens; tests call `app.inject()`. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: deps.logLevel ?? 'silent',
      ...(deps.nodeName === undefined
        ? {}
        : { base: { pid: process.pid, hostname: hostname(), node: deps.nodeName } }),
    },
    bodyLimit: 1024 * 1024,
    genReqId: () => randomUUID(),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  }).withTypeProvider<ZodTypeProvider>();
  // Input is validated by the routes' zod schemas, failing with the API's errors.
  app.setValidatorCompiler(validateInput);
  // Responses are written as JSON.stringify writes them, never through their schemas: the
  // declarations describe them (and the tests check them), a 1.5 MB report is not re-parsed.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerErrorHandling(app, await registerRateLimit(app, deps.rateLimit));
  registerJsonBodyParser(app);

  const tokenUses = new TokenUseRecorder(deps.db);
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', request.id);
    const path = request.url.split('?')[0]!;
    if (path.startsWith(`${API_PREFIX}/`) && !isPublicApiPath(API_PREFIX, path)) {
      request.caller = await authenticate(
        deps.db,
        deps.tokenEnv,
        request,
        tokenUses,
        deps.tokenIdentities,
      );
    }
  });
  // Role, scope and plan (403, 402) before the input is validated (422):
  // docs/contract.md, "Order of checks".
  app.addHook('preValidation', async (request) => {
    keepReceivedBody(request);
    checkBeforeInput(request);
  });
  app.addHook('onRoute', (route) => {
    const path = route.url ?? route.path;
    if (
      path.startsWith(`${API_PREFIX}/`) &&
      !isPublicApiPath(API_PREFIX, path) &&
      !route.config?.access
    )
      throw new Error(`${String(route.method)} ${path} declares no access rule (config.access)`);
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.method === 'GET' && deps.status.dataAsOf) {
      void reply.header('X-Data-As-Of', deps.status.dataAsOf.toISOString());
    }
  });

  const connections = deps.connections ?? new ConnectionPool(deps.readModel);
  app.addHook('onClose', async () => connections.close());
  const context: RouteContext = {
    db: deps.db,
    cursors: new CursorCodec(await loadServerSecret(deps.db, 'list-cursors')),
    records: new RecordCache(deps.status, deps.recordCacheRows),
    webhookAllowPrivate: deps.webhookAllowPrivate ?? false,
    async read(read) {
      if (!deps.status.ready) throw readModelUnavailable();
      return connections.use(read);
    },
  };
  registerHealthRoutes(app, {
    db: deps.db,
    status: deps.status,
    sync: deps.sync,
    node: deps.nodeName ?? null,
    joinLagMs: deps.joinLagMs ?? 1000,
  });
  const { readWaited } = registerMetrics(app, {
    db: deps.db,
    status: deps.status,
    sync: deps.sync,
    ...(deps.nodeName === undefined ? {} : { node: deps.nodeName }),
    readModelMemory: () => connections.use(readModelMemory),
    ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
  });
  connections.onWait = readWaited;
  registerDataPositions(app, {
    db: deps.db,
    waitMs: deps.positionWaitMs ?? 10_000,
    onWait: (seconds) => readWaited('position', seconds),
    ...(deps.sync ? { sync: deps.sync } : {}),
  });
  if (deps.validateResponses) registerResponseCheck(app);
  // After the data positions' wait; before the Arrow answers, so that the JSON is kept.
  registerCachedAnswers(app, new AnswerCache(deps.status, deps.answerCacheChars), deps.status);
  // After the response check: an Arrow answer's JSON is checked before it becomes a table.
  registerArrowAnswers(app);
  await registerOpenApi(app, API_PREFIX);
  if (deps.dashboardDir) await registerDashboard(app, deps.dashboardDir);
  for (const plugin of ROUTE_PLUGINS) await app.register(plugin, { prefix: API_PREFIX, context });
  return app;
}
