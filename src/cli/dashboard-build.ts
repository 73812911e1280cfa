import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version as esbuildVersion, type BuildOptions } from 'esbuild';

/** The dashboard's sources (web/) and where its static files are built (web/dist/). */
export const WEB_DIR = path.resolve(import.meta.dirname, '../../web');
export const DASHBOARD_DIR = path.join(WEB_DIR, 'dist');

/** Copied beside the bundle as they are. */
const STATIC_FILES = ['index.html', 'styles.css'];
/**
 * What a build was made from, in the built folder: a dot file, which the dashboard's routes
 * never serve (src/http/dashboard.route.ts lists the folder's files without dot files).
 */
const INPUTS_FILE = '.inputs.json';

const OPTIONS = {
  entryPoints: ['src/main.ts'],
  absWorkingDir: WEB_DIR,
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: true,
  target: ['chrome110', 'firefox115', 'safari16'],
  legalComments: 'linked',
  logLevel: 'warning',
  metafile: true,
} satisfies BuildOptions;

/** A file a build read: its size and modification time, and the SHA-256 of its bytes. */
interface InputFile {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** A build's inputs: esbuild's version and options, and each file it read (relative to web/). */
interface BuildInputs {
  builder: string;
  files: Record<string, InputFile>;
}

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
  const result = await build({ ...OPTIONS, outfile: path.join(staging, 'app.js') });
  const read = [...Object.keys(result.metafile.inputs), ...STATIC_FILES];
  const files = await Promise.all(read.map((file) => describe(file)));
  const inputs: BuildInputs = {
    builder: builderVersion(),
    files: Object.fromEntries(read.map((file, i) => [file, files[i]!])),
  };
  for (const file of STATIC_FILES) await cp(path.join(WEB_DIR, file), path.join(staging, file));
  await writeFile(path.join(staging, INPUTS_FILE), JSON.stringify(inputs));
  await rm(out, { recursive: true, force: true });
  await rename(staging, out);
}

/**
 * Builds the dashboard unless `out` holds a build of the very files it would read now (each
 * file esbuild read, the HTML and the CSS) with the same esbuild and options, so a server
 * always serves the code checked out. A file whose size or modification time changed counts
 * as changed only when its bytes did (their SHA-256), as git's index does. A build costs 0.6 s
 * of both cores at every start (2 s on a busy machine); looking at its 600 files, 10-30 ms.
 */
export async function ensureDashboard(out = DASHBOARD_DIR): Promise<'built' | 'current'> {
  const built = await readFile(path.join(out, INPUTS_FILE), 'utf8').then(
    (text) => JSON.parse(text) as BuildInputs,
    () => undefined,
  );
  if (built?.builder === builderVersion()) {
    const same = await Promise.all(
      Object.entries(built.files).map(([file, was]) => unchanged(file, was)),
    );
    if (same.every(Boolean)) return 'current';
  }
  await buildDashboard(out);
  return 'built';
}

function builderVersion(): string {
  return `esbuild ${esbuildVersion} ${JSON.stringify(OPTIONS)}`;
}

async function describe(file: string): Promise<InputFile> {
  const full = path.join(WEB_DIR, file);
  const { size, mtimeMs } = await stat(full);
  return { size, mtimeMs, sha256: await sha256(full) };
}

async function unchanged(file: string, was: InputFile): Promise<boolean> {
  const full = path.join(WEB_DIR, file);
  const now = await stat(full).catch(() => undefined);
  if (!now) return false;
  if (now.size === was.size && now.mtimeMs === was.mtimeMs) return true;
  return now.size === was.size && (await sha256(full)) === was.sha256;
}

async function sha256(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

// `npm run build:dashboard`: builds whatever the folder holds.
if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDashboard();
