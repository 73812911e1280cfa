import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { violations } from '../support/axe.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { TOKENS, smallSnapshot } from '../support/small-snapshot.ts';
import { DESKTOP, PHONE, launchBrowser, listen, newPage, signIn } from '../support/browser.ts';

/**
 * Each view read by axe-core for what a screen reader or keyboard user would miss: labels,
 * names, contrast, landmarks, table headers; at a desktop and a phone width.
 */
describe('dashboard accessibility', () => {
  let harness: Harness;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    harness = await createHarness({ dashboard: true });
    await harness.importObject(smallSnapshot());
    await harness.sync();
    base = await listen(harness);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it('has a sign-in form whose field is labelled', async () => {
    const { context, page } = await newPage(browser, DESKTOP, { bypassCSP: true });
    await page.goto(`${base}/`);
    expect(await violations(page)).toEqual([]);
    await context.close();
  });

  for (const [width, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const)
    it(`breaks no WCAG A/AA rule on any view (${width})`, async () => {
      const { context, page, errors } = await newPage(browser, viewport, { bypassCSP: true });
      await signIn(page, base, TOKENS.owner);
      await page.getByTestId('overview-summary').waitFor();
      expect(await violations(page)).toEqual([]);

      await page.goto(`${base}/#/payouts`);
      await page.getByTestId('unpaid').waitFor();
      expect(await violations(page)).toEqual([]);

      await page.goto(`${base}/#/profitability?range=last-12-months`);
      await page.locator('[data-testid=margin-line][data-state=drawn]').waitFor();
      await page.getByTestId('drill').first().click();
      await page.getByTestId('member-projects').first().waitFor();
      expect(await violations(page)).toEqual([]);

      // With its endpoint selected and its errors shown: test/dashboard/webhooks.test.ts.
      await page.goto(`${base}/#/webhooks`);
      await page.getByTestId('webhook-form').waitFor();
      expect(await violations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
});
