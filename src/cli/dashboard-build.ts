import { cp, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

/** The dashboard's sources (web/) and where its static files are built (web/dist/). */
export const WEB_DIR = path.resolve(import.meta.dirname, '../../web');
export const DASHBOARD_DIR = path.join(WEB_DIR, 'dist');

/**
 * Builds the dashboard's static files from the repository (docs/dashboard.md): the TypeScript
 * of web/src bundled with the charts by esbuild, beside index.html and styles.css. Written to
 * a fresh folder, then moved into place, so a server never serves half a build. Nothing is
 * fetched: every byte comes from the repository and node_modules.
 */
export async function buildDashboard(out = DASHBOARD_DIR): Promise<void> {
  const staging = `${out}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await build({
    entryPoints: [path.join(WEB_DIR, 'src/main.ts')],
    outfile: path.join(staging, 'app.js'),
    bundle: true,
    format: 'esm',
    minify: true,
    sourcemap: true,
    target: ['chrome110', 'firefox115', 'safari16'],
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await cp(path.join(WEB_DIR, 'index.html'), path.join(staging, 'index.html'));
  await cp(path.join(WEB_DIR, 'styles.css'), path.join(staging, 'styles.css'));
  await rm(out, { recursive: true, force: true });
  await rename(staging, out);
}
