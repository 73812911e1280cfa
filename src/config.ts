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
  // Unset: DEFAULT_RATE_LIMIT of src/http/rate-limit.ts (20 per second, bursts of 100).
  RATE_LIMIT_PER_SECOND: z.coerce
    .number({ error: 'must be a number of requests per second' })
    .positive()
    .optional(),
  RATE_LIMIT_BURST: z.coerce
    .number({ error: 'must be a whole number of requests' })
    .int()
    .min(1)
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
});

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  port: number;
  tokenEnv: 'live' | 'test';
  logLevel: z.infer<typeof configSchema>['LOG_LEVEL'];
  /** Per-token requests per second; undefined takes the rate limiter's default. */
  rateLimitPerSecond: number | undefined;
  /** Per-token burst; undefined takes the rate limiter's default. */
  rateLimitBurst: number | undefined;
  /** Rows kept per list by the record cache. */
  recordCacheRows: number;
  /** Characters of read-model answers kept by the answer cache. */
  answerCacheChars: number;
  /** Path of the export schedules file, resolved; undefined: no schedules. */
  exportSchedules: string | undefined;
}

export class ConfigError extends Error {}

/**
 * Reads the configuration from the environment. A bad value throws a ConfigError whose
 * message is one line naming the variable, for the CLI to print before exiting with 1.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
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
    rateLimitPerSecond: c.RATE_LIMIT_PER_SECOND,
    rateLimitBurst: c.RATE_LIMIT_BURST,
    recordCacheRows: c.RECORD_CACHE_ROWS,
    answerCacheChars: c.ANSWER_CACHE_MB * 1024 * 1024,
    exportSchedules:
      c.EXPORT_SCHEDULES === undefined ? undefined : path.resolve(c.EXPORT_SCHEDULES),
  };
}
