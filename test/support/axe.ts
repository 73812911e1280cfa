import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core, the accessibility engine, run inside the page (no network: it is in node_modules). */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * WCAG 2.1 A and AA rules that axe finds broken on the page as it is now. The page's context
 * must bypass its Content-Security-Policy (newPage's `bypassCSP`) to take the script.
 */
export async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: Violation[] }> } }
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
