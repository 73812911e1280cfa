import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  STUDIO_OWNER_TOKEN,
  TOKENS,
  smallSnapshot,
  tinySnapshot,
} from '../support/small-snapshot.ts';
import { PHONE, launchBrowser, listen, newPage, screenshot, signIn } from '../support/browser.ts';

/**
 * The dashboard's sign-in in a real browser: who may see it, what the others are told, where
 * the token is kept, and what a revoked token does.
 */
describe('dashboard sign-in and access', () => {
  let harness: Harness;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    harness = await createHarness({ dashboard: true });
    await harness.importObject(smallSnapshot());
    await harness.importObject(tinySnapshot(7, 'studio', STUDIO_OWNER_TOKEN));
    await harness.sync();
    base = await listen(harness);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  for (const role of ['owner', 'admin'] as const)
    it(`shows the ${role} the overview, and keeps the token in sessionStorage only`, async () => {
      const { context, page, errors } = await newPage(browser);
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await signIn(page, base, TOKENS[role]);
      await page.getByTestId('overview-summary').waitFor();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Overview');
      expect(await page.evaluate(() => sessionStorage.getItem('ledgerline.token'))).toBe(
        TOKENS[role],
      );
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
      expect(await context.cookies()).toEqual([]);
      expect(requests.filter((url) => url.includes(TOKENS[role]))).toEqual([]);
      expect(page.url()).not.toContain(TOKENS[role]);
      expect(errors).toEqual([]);
      await context.close();
    });

  for (const [role, name] of [
    ['manager', 'Manager'],
    ['member', 'Member'],
  ] as const)
    it(`tells a ${name} token which role the page needs`, async () => {
      const { context, page, errors } = await newPage(browser);
      await signIn(page, base, TOKENS[role]);
      const refusal = page.getByTestId('role-refusal');
      await refusal.waitFor();
      const text = await refusal.innerText();
      expect(text).toContain('Owner or Admin');
      expect(text).toContain(`Yours is a ${name} token`);
      expect(await page.getByTestId('overview-summary').count()).toBe(0);
      await screenshot(page, `refusal-role-${role}`);
      expect(errors).toEqual([]);
      await context.close();
    });

  it('tells the Owner of a Studio workspace that team payouts need the Agency plan', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, base, STUDIO_OWNER_TOKEN);
    const refusal = page.getByTestId('plan-refusal');
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(/Agency plan.*Studio plan/s);
    await screenshot(page, 'refusal-plan-studio');
    await context.close();
  });

  it('sends a revoked token back to sign-in with the reason, and forgets it', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, base, TOKENS.revoked);
    const error = page.getByTestId('signin-error');
    await error.waitFor();
    expect(await error.innerText()).toContain('revoked');
    expect(await page.evaluate(() => sessionStorage.getItem('ledgerline.token'))).toBeNull();
    await context.close();
  });

  it('goes back to sign-in when the token is revoked while the page is open', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, base, TOKENS.admin);
    await page.getByTestId('overview-summary').waitFor();
    await harness.pool.query(`UPDATE api_tokens SET revoked_at = now() WHERE prefix = $1`, [
      TOKENS.admin.split('_')[2],
    ]);
    try {
      // The next request of the page (its freshness poll, or a click) meets the 401.
      await page.getByRole('link', { name: 'Payouts', exact: true }).click();
      await page.getByTestId('signin-error').waitFor({ timeout: 15_000 });
      expect(await page.evaluate(() => sessionStorage.getItem('ledgerline.token'))).toBeNull();
    } finally {
      await harness.pool.query(`UPDATE api_tokens SET revoked_at = NULL WHERE prefix = $1`, [
        TOKENS.admin.split('_')[2],
      ]);
      await context.close();
    }
  });

  it('signs in with the keyboard alone, on a phone-wide screen', async () => {
    const { context, page, errors } = await newPage(browser, PHONE);
    await page.goto(`${base}/`);
    // The token field has the focus; typing, then Enter, signs in.
    await page.keyboard.type(TOKENS.owner);
    await page.keyboard.press('Enter');
    await page.getByTestId('overview-summary').waitFor();
    // The views are links reached with Tab.
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Payouts') break;
    }
    await page.keyboard.press('Enter');
    await page.getByTestId('unpaid').waitFor();
    expect(page.url()).toMatch(/#\/payouts$/);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
