/** A small line chart (latency against offered load) as SVG, rendered to PNG with resvg. */
import { Resvg } from '@resvg/resvg-js';

export interface Series {
  name: string;
  color: string;
  points: { x: number; p50: number; p99: number }[];
}

const W = 900;
const H = 540;
const M = { left: 70, right: 200, top: 50, bottom: 60 };

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const mag = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= v) return m * mag;
  return 10 * mag;
}

export function latencyChartSvg(title: string, series: Series[]): string {
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.p99));
  const xMax = niceMax(Math.max(...xs, 1));
  const yMax = niceMax(Math.max(...ys, 1));
  const px = (x: number) => M.left + (x / xMax) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - (y / yMax) * (H - M.top - M.bottom);
  const parts: string[] = [];
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${W / 2 - 100}" y="28" font-family="DejaVu Sans" font-size="18">${title}</text>`);
  for (let i = 0; i <= 5; i++) {
    const yv = (yMax * i) / 5;
    const xv = (xMax * i) / 5;
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(yv)}" y2="${py(yv)}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${M.left - 8}" y="${py(yv) + 4}" text-anchor="end" font-family="DejaVu Sans" font-size="12">${+yv.toFixed(2)}</text>`,
    );
    parts.push(
      `<text x="${px(xv)}" y="${H - M.bottom + 18}" text-anchor="middle" font-family="DejaVu Sans" font-size="12">${Math.round(xv)}</text>`,
    );
  }
  parts.push(
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 15}" text-anchor="middle" font-family="DejaVu Sans" font-size="13">offered load (requests/s)</text>`,
  );
  parts.push(
    `<text transform="translate(20 ${H / 2}) rotate(-90)" text-anchor="middle" font-family="DejaVu Sans" font-size="13">latency (ms)</text>`,
  );
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
    const ly = M.top + 20 + i * 40;
    parts.push(
      `<line x1="${W - M.right + 15}" x2="${W - M.right + 45}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"/>`,
    );
    parts.push(
      `<text x="${W - M.right + 52}" y="${ly + 4}" font-family="DejaVu Sans" font-size="12">${s.name}</text>`,
    );
  });
  parts.push(
    `<text x="${W - M.right + 15}" y="${M.top + 20 + series.length * 40}" font-family="DejaVu Sans" font-size="11">solid p50, dashed p99</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${parts.join('')}</svg>`;
}

export function svgToPng(svg: string): Buffer {
  return Buffer.from(
    new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng(),
  );
}
