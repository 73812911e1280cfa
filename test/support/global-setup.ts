import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedStore } from '../../src/store/embedded-postgres.ts';
import { createPool } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { buildDashboard } from '../../src/cli/dashboard-build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Server URL of the test PostgreSQL (any database name can be put in its path). */
    pgUrl: string;
    /** The dashboard's static files, built once for the run (src/cli/dashboard-build.ts). */
    dashboardDir: string;
  }
}

export const TEMPLATE_DATABASE = 'ledgerline_template';

/**
 * One embedded PostgreSQL for the whole run, with a migrated template database from which
 * each test file clones its own database (test/support/databases.ts). A TEST_DATABASE_URL in the
 * environment is used instead of the embedded server.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let url = process.env.TEST_DATABASE_URL;
  let stop: () => Promise<void> = () => Promise.resolve();
  let dir: string | undefined;
  if (!url) {
    dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-test-'));
    await chmod(dir, 0o755);
    const store = await startEmbeddedStore({ dataDir: dir, ephemeral: true });
    url = store.url;
    stop = () => store.stop();
  }
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE}`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const pool = createPool(withDatabase(url, TEMPLATE_DATABASE));
  await migrate(pool);
  await pool.end();
  project.provide('pgUrl', url);
  const dashboard = await mkdtemp(path.join(tmpdir(), 'ledgerline-dashboard-'));
  await buildDashboard(path.join(dashboard, 'dist'));
  project.provide('dashboardDir', path.join(dashboard, 'dist'));
  return async () => {
    await stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    await rm(dashboard, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
