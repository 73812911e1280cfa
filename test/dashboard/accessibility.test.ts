import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createHarness, type Harness } from '../support/harness.ts';
import { TOKENS, smallSnapshot } from '../support/small-snapshot.ts';
import { DESKTOP, PHONE, launchBrowser, listen, newPage, signIn } from '../support/browser.ts';

/** axe-core, the accessibility engine, run inside the page (no network: it is in node_modules). */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** WCAG 2.1 A and AA rules that axe finds broken on the page as it is now. */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(o: unknown): Promise<{ violations: Violation[] }> } }
    ).axe;
    const result = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations;
  });
  return found.map(
    (v) =>
      `${v.id} (${v.impact ?? '?'}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

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
      expect(errors).toEqual([]);
      await context.close();
    });
});
