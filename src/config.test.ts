import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration from the environment', () => {
  it('has defaults a newcomer can run with', () => {
    expect(loadConfig({})).toEqual({
      databaseUrl: undefined,
      dataDir: path.resolve('.data'),
      host: '127.0.0.1',
      port: 3000,
      tokenEnv: 'live',
      logLevel: 'warn',
      recordCacheRows: 50_000,
      answerCacheChars: 32 * 1024 * 1024,
      exportSchedules: undefined,
      nodeName: undefined,
      publication: undefined,
      joinLagMs: 1000,
      webhookAllowPrivate: false,
    });
  });

  it('takes a node name that can name a replication slot', () => {
    expect(loadConfig({ NODE_NAME: 'eu_west_2' }).nodeName).toBe('eu_west_2');
  });

  it('resolves the export schedules file', () => {
    expect(loadConfig({ EXPORT_SCHEDULES: 'exports.json' }).exportSchedules).toBe(
      path.resolve('exports.json'),
    );
  });

  it.each([
    [{ PORT: 'abc' }, /^Invalid configuration: PORT /],
    [{ PORT: '70000' }, /^Invalid configuration: PORT /],
    [{ TOKEN_ENV: 'prod' }, /^Invalid configuration: TOKEN_ENV /],
    [{ DATABASE_URL: 'mysql://x' }, /^Invalid configuration: DATABASE_URL /],
    [{ RECORD_CACHE_ROWS: '-1' }, /^Invalid configuration: RECORD_CACHE_ROWS /],
    [{ ANSWER_CACHE_MB: '1.5' }, /^Invalid configuration: ANSWER_CACHE_MB /],
    [{ NODE_NAME: 'Node-A' }, /^Invalid configuration: NODE_NAME .*replication slot/],
    [{ NODE_NAME: 'a'.repeat(41) }, /^Invalid configuration: NODE_NAME /],
  ])('names the bad variable in one line: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' })).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
    });
  });
});
