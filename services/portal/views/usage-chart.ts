import { BANDS } from '../../../shared/vocabulary/score-terms.ts';
import type { DayUsage } from '../activity.ts';
import { html, type SafeHtml } from '../html.ts';
import { num } from './format.ts';

const W = 480;
const H = 140;
const AXIS = 18;
const BAR = W / 24;

/**
 * Today's scores per UTC hour, stacked by band, as server-rendered SVG (no client code). Fills
 * come from portal.css classes (the CSP allows no inline style); each bar has a title and the
 * chart a text summary, so nothing rests on the picture alone.
 */
export function hourlyChart(today: DayUsage): SafeHtml {
  const totals = today.hours.map((h) => Object.values(h).reduce((a, b) => a + b, 0));
  const peak = Math.max(1, ...totals);
  const busiest = totals.indexOf(Math.max(...totals));
  const scale = (H - AXIS - 4) / peak;
  const bars = today.hours.map((counts, hour) => {
    let y = H - AXIS;
    const parts = BANDS.filter((b) => (counts[b] ?? 0) > 0).map((b) => {
      const h = Math.max(1, (counts[b] ?? 0) * scale);
      y -= h;
      return html`<rect
        class="fill-${b}"
        x="${(hour * BAR + 1).toFixed(1)}"
        y="${y.toFixed(1)}"
        width="${(BAR - 2).toFixed(1)}"
        height="${h.toFixed(1)}"
      ></rect>`;
    });
    const label = `${String(hour).padStart(2, '0')}:00 UTC: ${num(totals[hour]!)} scores${
      totals[hour]
        ? ` (${BANDS.filter((b) => counts[b])
            .map((b) => `${b} ${num(counts[b]!)}`)
            .join(', ')})`
        : ''
    }`;
    return html`<g><title>${label}</title>${parts}</g>`;
  });
  const summary =
    today.total === 0
      ? 'No scores yet today.'
      : `${num(today.total)} scores today; the busiest hour is ${String(busiest).padStart(2, '0')}:00 UTC with ${num(totals[busiest]!)}.`;
  return html`<figure class="chart" id="usage-chart">
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="usage-chart-title">
      <title id="usage-chart-title">Scores per hour today, by band. ${summary}</title>
      <line class="axis" x1="0" y1="${H - AXIS}" x2="${W}" y2="${H - AXIS}"></line>
      ${[0, 6, 12, 18].map(
        (h) =>
          html`<text class="tick" x="${h * BAR + 2}" y="${H - 4}">${String(h).padStart(2, '0')}:00</text>`,
      )}
      ${bars}
    </svg>
    <figcaption class="hint">Scores per hour today (UTC), stacked by band. ${summary}</figcaption>
  </figure>`;
}

/**
 * Credits used this month against the allowance and then the overdraft grace, as one bar: the
 * allowance part, the grace part past it, and how much of each is used.
 */
export function creditsBar(used: number, allowance: number, grace: number): SafeHtml {
  const total = Math.max(1, allowance + grace);
  const x = (n: number) => ((Math.min(n, total) / total) * W).toFixed(1);
  const inAllowance = Math.min(used, allowance);
  const inGrace = Math.max(0, Math.min(used - allowance, grace));
  return html`<svg class="credits-bar" viewBox="0 0 ${W} 14" aria-hidden="true" focusable="false">
    <rect class="allowance" x="0" y="0" width="${x(allowance)}" height="14"></rect>
    <rect class="grace" x="${x(allowance)}" y="0" width="${x(grace)}" height="14"></rect>
    <rect class="used" x="0" y="3" width="${x(inAllowance)}" height="8"></rect>
    <rect class="used-grace" x="${x(allowance)}" y="3" width="${x(inGrace)}" height="8"></rect>
  </svg>`;
}
