import { execFile } from 'node:child_process';
import { access, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { processRuns } from '../../src/processes.ts';
import type { Harness } from './harness.ts';

/** Where the tests leave their screenshots (kept after the run, ignored by git). */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-artifacts/screenshots');

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Chromium's flags beyond playwright-core's own (which already has --headless and the rest of
 * a headless launch). Root in a container has no user namespaces for chromium's sandbox. The
 * machines' network is closed, so nothing may reach out at start (background requests,
 * component updates, first-run and sync set-up), whatever playwright-core's defaults become.
 * None of @sparticuz/chromium's own `chromium.args` is needed here: they are for serverless
 * hosts (--single-process, --no-zygote, --in-process-gpu), and some would make the browser
 * unlike a user's (--disable-web-security, --allow-running-insecure-content).
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/**
 * The Chromium binary of the dashboard tests and benchmarks: CHROMIUM_PATH when set, else the
 * one inside the npm package @sparticuz/chromium (a devDependency, so `npm install` is the
 * whole set-up; README, "Test").
 */
export async function chromiumPath(): Promise<string> {
  const given = process.env.CHROMIUM_PATH;
  if (given === undefined || given === '') return unpackedChromium();
  try {
    await access(given);
  } catch {
    throw new Error(`No chromium at CHROMIUM_PATH=${given}; unset it to use @sparticuz/chromium.`);
  }
  return given;
}

/**
 * The package ships its binary compressed; `chromium.executablePath()` unpacks it into
 * os.tmpdir() and reuses whatever `chromium` is already there, whole or not, of any version.
 * So it unpacks, in a child process whose TMPDIR is a folder of this process's own, and that
 * folder is renamed to one named by the package's version: a folder of that name is always
 * whole (a rename is atomic), and test files starting at once in two workers each unpack
 * and one rename wins, instead of one starting a binary the other is still writing.
 */
async function unpackedChromium(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const manifest = JSON.parse(
    await readFile(path.resolve(path.dirname(entry), '../package.json'), 'utf8'),
  ) as { version: string };
  const folder = path.join(tmpdir(), `ledgerline-chromium-${manifest.version}`);
  const binary = path.join(folder, 'chromium');
  await removeAbandonedUnpacks(folder);
  try {
    await access(binary);
    return binary;
  } catch {
    // Not unpacked yet on this machine.
  }
  const partial = `${folder}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial);
  try {
    const unpack = `const { default: c } = await import(process.argv[1]); process.stdout.write(await c.executablePath());`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', unpack, pathToFileURL(entry).href],
      { env: { ...process.env, TMPDIR: partial } },
    );
    if (stdout !== path.join(partial, 'chromium')) {
      throw new Error(`@sparticuz/chromium unpacked to ${stdout}, not into ${partial}`);
    }
    await rename(partial, folder).catch(async (error: NodeJS.ErrnoException) => {
      // Another worker's rename came first: its folder is as whole as this one.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      await rm(partial, { recursive: true, force: true });
    });
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  return binary;
}

/**
 * Removes the partial unpacks (about 210 MB each) that processes killed while unpacking left,
 * at every launch: the folder of a process still running is its unpack under way.
 */
export async function removeAbandonedUnpacks(folder: string): Promise<void> {
  const prefix = `${path.basename(folder)}.partial-`;
  for (const name of await readdir(path.dirname(folder))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && !processRuns(pid)) {
      await rm(path.join(path.dirname(folder), name), { recursive: true, force: true });
    }
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumPath(), args: CHROMIUM_ARGS });
}

/** The harness's app listening on a free local port; its base URL. */
export async function listen(harness: Harness): Promise<string> {
  await harness.app.listen({ host: '127.0.0.1', port: 0 });
  const address = harness.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * A fresh browser context (its own sessionStorage) at `viewport`, in en-US, that fails the
 * test on any page error or console error.
 */
export async function newPage(
  browser: Browser,
  viewport = DESKTOP,
  /** Lets a test add its own script (axe-core) past the page's Content-Security-Policy. */
  options: { bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    ...options,
    viewport,
    locale: 'en-US',
    timezoneId: 'UTC',
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { context, page, errors };
}

/** Opens the dashboard and signs in with `token`, as a person pastes it. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Saves a screenshot of the whole page as test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * How the page writes an amount: Intl.NumberFormat of the API's decimal string (en-US), the
 * currency's scale or more. Node's Intl is ECMA-402 as Chromium's is, so the two agree.
 */
export function money(amount: string, currency: string): string {
  const scale = Math.max(
    new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits!,
    amount.split('.')[1]?.length ?? 0,
  );
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: scale,
    maximumFractionDigits: scale,
  }).format(amount as Intl.StringNumericLiteral);
}
