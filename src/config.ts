import path from 'node:path';
import { z } from 'zod';

const configSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(3000),
  TOKEN_ENV: z.enum(['live', 'test']).default('live'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  // The per-token fixed window; unset: DEFAULT_RATE_LIMIT of src/http/rate-limit.ts (100
  // requests per window of 5 s).
  RATE_LIMIT_REQUESTS: z.coerce
    .number({ error: 'must be a whole number of requests' })
    .int('must be a whole number of requests')
    .min(1, 'must be at least 1')
    .optional(),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .optional(),
  // Rows of each list's pages kept in memory (src/readmodel/record-cache.ts); 0 keeps none.
  RECORD_CACHE_ROWS: z.coerce
    .number({ error: 'must be a whole number of rows' })
    .int()
    .min(0)
    .default(50_000),
  // Mebi-characters of read-model answers kept (src/readmodel/answer-cache.ts); 0 keeps none.
  ANSWER_CACHE_MB: z.coerce
    .number({ error: 'must be a whole number of megabytes' })
    .int()
    .min(0)
    .default(32),
  // A JSON file of export schedules the server runs (docs/exports.md); unset: none.
  EXPORT_SCHEDULES: z.string().min(1).optional(),
  // This API node's name, when several follow one store (docs/scale-out.md): it names the
  // node's replication slot, and /healthz, /metrics and the logs carry it.
  NODE_NAME: z
    .string()
    .regex(
      /^[a-z0-9_]{1,40}$/,
      "must be 1-40 lower-case letters, digits or underscores (it names the node's replication slot)",
    )
    .optional(),
  // The publication the node's read model follows: a shard's, made by `shard create`, holds
  // some workspaces only (docs/scale-out.md, "Sharding"); unset: every row.
  PUBLICATION: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be a publication name (lower-case letters, digits, _)')
    .optional(),
  // Webhooks may target loopback, link-local and private addresses (tests, on-premises use;
  // docs/webhooks.md, "Targets").
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false'),
  // A node that starts or reloads answers /healthz 503 until it reaches the store's position
  // within this many seconds (docs/scale-out.md, "A node that joins").
  JOIN_LAG_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .positive('must be more than 0')
    .max(60, 'must be at most 60')
    .default(1),
});

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  port: number;
  tokenEnv: 'live' | 'test';
  logLevel: z.infer<typeof configSchema>['LOG_LEVEL'];
  /** Requests per window per token; undefined takes the rate limiter's default. */
  rateLimitRequests: number | undefined;
  /** Length of the rate limit's window in seconds; undefined takes the limiter's default. */
  rateLimitWindowSeconds: number | undefined;
  /** Rows kept per list by the record cache. */
  recordCacheRows: number;
  /** Characters of read-model answers kept by the answer cache. */
  answerCacheChars: number;
  /** Path of the export schedules file, resolved; undefined: no schedules. */
  exportSchedules: string | undefined;
  /** The node's name (NODE_NAME); undefined: a server alone, unnamed. */
  nodeName: string | undefined;
  /** The publication followed (PUBLICATION); undefined: the read model's, every row. */
  publication: string | undefined;
  /** Whether webhooks may target private addresses (WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
  /** The lag, in ms, under which a starting node counts as joined (JOIN_LAG_SECONDS). */
  joinLagMs: number;
}

export class ConfigError extends Error {}

const FIXED_WINDOW =
  'is no longer read: the per-token limit is a fixed window; set RATE_LIMIT_REQUESTS (requests per window, default 100) and RATE_LIMIT_WINDOW_SECONDS (its length in seconds, default 5) instead';

/**
 * Variables that are no longer read, with what replaced them. A server is refused rather
 * than started with one set: it would silently run with a limit other than the one asked for.
 */
const RETIRED: Record<string, string> = {
  RATE_LIMIT_PER_SECOND: FIXED_WINDOW,
  RATE_LIMIT_BURST: FIXED_WINDOW,
};

/**
 * Reads the configuration from the environment. A bad value throws a ConfigError whose
 * message is one line naming the variable, for the CLI to print before exiting with 1.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  for (const [name, problem] of Object.entries(RETIRED))
    if (env[name] !== undefined && env[name] !== '')
      throw new ConfigError(`Invalid configuration: ${name} ${problem}`);
  const picked = Object.fromEntries(
    Object.keys(configSchema.shape).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const parsed = configSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join('.') ?? 'environment';
    throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}`);
  }
  const c = parsed.data;
  return {
    databaseUrl: c.DATABASE_URL,
    dataDir: path.resolve(c.DATA_DIR),
    host: c.HOST,
    port: c.PORT,
    tokenEnv: c.TOKEN_ENV,
    logLevel: c.LOG_LEVEL,
    rateLimitRequests: c.RATE_LIMIT_REQUESTS,
    rateLimitWindowSeconds: c.RATE_LIMIT_WINDOW_SECONDS,
    recordCacheRows: c.RECORD_CACHE_ROWS,
    answerCacheChars: c.ANSWER_CACHE_MB * 1024 * 1024,
    exportSchedules:
      c.EXPORT_SCHEDULES === undefined ? undefined : path.resolve(c.EXPORT_SCHEDULES),
    nodeName: c.NODE_NAME,
    publication: c.PUBLICATION,
    webhookAllowPrivate: c.WEBHOOK_ALLOW_PRIVATE === 'true',
    joinLagMs: Math.round(c.JOIN_LAG_SECONDS * 1000),
  };
}
