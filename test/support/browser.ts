import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Harness } from './harness.ts';

/**
 * The browser of the dashboard tests: Debian's chromium (`apt-get install -y chromium`, the
 * README's test set-up), driven by playwright-core. CHROMIUM_PATH names another binary.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the tests leave their screenshots (kept after the run, ignored by git). */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-artifacts/screenshots');

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export async function launchBrowser(): Promise<Browser> {
  try {
    await access(CHROMIUM);
  } catch {
    throw new Error(
      `No chromium at ${CHROMIUM}: the dashboard tests need it. Install it with \`apt-get install -y chromium\` (README, "Tests"), or set CHROMIUM_PATH.`,
    );
  }
  // Root in a container has no user namespaces for chromium's sandbox.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
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
