/**
 * A small line chart (latency against offered load) as SVG, rendered to PNG with resvg. Both axes
 * are logarithmic: the scoring path saturates at a fifth of the hello servers' rate and answers in
 * ten times their latency, and on linear axes its points sat squashed in a corner. The legend
 * sits under the plot across its whole width, so no series name is cut off.
 */
import { Resvg } from '@resvg/resvg-js';

export interface Series {
  name: string;
  color: string;
  points: { x: number; p50: number; p99: number }[];
}

const W = 960;
const H = 620;
const M = { left: 80, right: 30, top: 50, bottom: 150 };
const FONT = 'font-family="DejaVu Sans"';

/** Powers of ten within [lo, hi], with 2 and 5 in between when it spans at most 3 decades. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  const steps = Math.log10(hi / lo) <= 3 ? [1, 2, 5] : [1];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++)
    for (const m of steps) {
      const t = m * 10 ** e;
      if (t >= lo && t <= hi) ticks.push(t);
    }
  return ticks;
}

function logRange(values: number[]): [number, number] {
  const positive = values.filter((v) => v > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...positive)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...positive) * 1.05));
  return [lo, hi];
}

const label = (v: number) => (v >= 1000 ? `${v / 1000}k` : String(+v.toPrecision(3)));

export function latencyChartSvg(title: string, series: Series[]): string {
  const [xLo, xHi] = logRange(series.flatMap((s) => s.points.map((p) => p.x)));
  const [yLo, yHi] = logRange(series.flatMap((s) => s.points.flatMap((p) => [p.p50, p.p99])));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const px = (x: number) => M.left + (Math.log10(x / xLo) / Math.log10(xHi / xLo)) * plotW;
  const py = (y: number) =>
    H - M.bottom - (Math.log10(Math.max(y, yLo) / yLo) / Math.log10(yHi / yLo)) * plotH;
  const parts: string[] = [`<rect width="${W}" height="${H}" fill="white"/>`];
  parts.push(`<text x="${W / 2}" y="28" text-anchor="middle" ${FONT} font-size="18">${title}</text>`);
  for (const yv of logTicks(yLo, yHi)) {
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(yv)}" y2="${py(yv)}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${M.left - 8}" y="${py(yv) + 4}" text-anchor="end" ${FONT} font-size="12">${label(yv)}</text>`,
    );
  }
  for (const xv of logTicks(xLo, xHi)) {
    parts.push(`<line x1="${px(xv)}" x2="${px(xv)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#eee"/>`);
    parts.push(
      `<text x="${px(xv)}" y="${H - M.bottom + 18}" text-anchor="middle" ${FONT} font-size="12">${label(xv)}</text>`,
    );
  }
  parts.push(
    `<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
    `<text x="${M.left + plotW / 2}" y="${H - M.bottom + 42}" text-anchor="middle" ${FONT} font-size="13">offered load (requests/s, log scale)</text>`,
    `<text transform="translate(22 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle" ${FONT} font-size="13">latency (ms, log scale)</text>`,
  );
  const legendTop = H - M.bottom + 70;
  const columnW = plotW / 2;
  series.forEach((s, i) => {
    for (const [key, dash] of [
      ['p50', ''],
      ['p99', '6 4'],
    ] as const) {
      const d = s.points
        .map((p, j) => `${j ? 'L' : 'M'}${px(p.x).toFixed(1)},${py(p[key]).toFixed(1)}`)
        .join(' ');
      parts.push(
        `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2" stroke-dasharray="${dash}"/>`,
      );
      for (const p of s.points)
        parts.push(`<circle cx="${px(p.x)}" cy="${py(p[key])}" r="3" fill="${s.color}"/>`);
    }
    const lx = M.left + (i % 2) * columnW;
    const ly = legendTop + Math.floor(i / 2) * 24;
    parts.push(
      `<line x1="${lx}" x2="${lx + 30}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"/>`,
      `<text x="${lx + 38}" y="${ly + 4}" ${FONT} font-size="13">${s.name}</text>`,
    );
  });
  parts.push(
    `<text x="${M.left}" y="${legendTop + Math.ceil(series.length / 2) * 24 + 8}" ${FONT} font-size="12">solid: p50, dashed: p99; one point per 25, 50 and 75 % of the target's own saturation</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${parts.join('')}</svg>`;
}

export function svgToPng(svg: string): Buffer {
  return Buffer.from(
    new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng(),
  );
}
