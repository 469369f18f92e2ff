import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

/**
 * Where screenshots go: test-results always; docs/portal too, for the pages docs/portal.md shows,
 * when PORTAL_DOC_SHOTS=1. Their keys and links are the test's own, revoked or used by the end.
 */
const DOC_PAGES = new Set([
  'activity',
  'explain',
  'keys-created',
  'keys',
  'keys-error',
  'roll',
  'team-link',
  'signin',
  'lists',
  'lists-upload-refused',
]);
const shotDirs = (name: string) => [
  'test-results/portal',
  ...(process.env.PORTAL_DOC_SHOTS === '1' && DOC_PAGES.has(name) ? ['docs/portal'] : []),
];
export const PHONE_WIDTH = 390;
const DESKTOP = { width: 1280, height: 800 };

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe-core's serious and critical WCAG 2.x A/AA findings on the page as it is now. */
export async function seriousA11yViolations(page: Page): Promise<AxeFinding[]> {
  // Evaluated rather than added as a <script>: the portal's CSP refuses inline and foreign scripts,
  // and the pages are tested with their CSP in force.
  if (!(await page.evaluate(`typeof window.axe !== 'undefined'`)))
    await page.evaluate(readFileSync(AXE, 'utf8'));
  // Browser-side code as text: this project compiles without the DOM's types.
  const found = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary).slice(0, 5),
    })))`)) as AxeFinding[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * The checks every page gets: no serious or critical accessibility finding, no sideways scrolling
 * at 390 px; and a screenshot at desktop and phone width named `name`.
 */
export async function checkPage(
  page: Page,
  name: string,
): Promise<{ violations: AxeFinding[]; phoneWidth: number }> {
  const violations = await seriousA11yViolations(page);
  for (const dir of shotDirs(name)) {
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: `${dir}/${name}-desktop.png`, fullPage: true });
  }
  await page.setViewportSize({ width: PHONE_WIDTH, height: 844 });
  const phoneWidth = (await page.evaluate('document.scrollingElement.scrollWidth')) as number;
  for (const dir of shotDirs(name))
    await page.screenshot({ path: `${dir}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  return { violations, phoneWidth };
}
