import { html, type SafeHtml } from '../html.ts';

/** Grouped thousands (12,345): the portal's pages are in English. */
const grouping = new Intl.NumberFormat('en-GB');
export const num = (n: number) => grouping.format(n);

const utc = (ms: number | string) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

/**
 * A time as UTC text in a `<time>`; the page's script shows it in the viewer's time zone and
 * keeps the UTC text as its title (hover).
 */
export function when(ms: number | string | undefined): SafeHtml {
  if (ms === undefined) return html`never`;
  return html`<time datetime="${new Date(ms).toISOString()}">${utc(ms)}</time>`;
}
