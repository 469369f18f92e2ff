/** The stacked bar chart of `npm run bench:system`: one bar per rate, one segment per process. */
import escapeHtml from 'escape-html';

export interface CostBar {
  label: string;
  parts: { name: string; us: number }[];
}

// Colour-blind-safe qualitative palette (Okabe-Ito), then greys.
const COLOURS = ['#0072B2', '#56B4E9', '#E69F00', '#D55E00', '#009E73', '#F0E442', '#CC79A7', '#000000'];
const colour = (i: number) => COLOURS[i] ?? `hsl(0, 0%, ${30 + ((i * 13) % 50)}%)`;

export function systemCostSvg(title: string, bars: CostBar[]): string {
  const names = bars[0]?.parts.map((p) => p.name) ?? [];
  const max = Math.max(1, ...bars.map((b) => b.parts.reduce((a, p) => a + Math.max(0, p.us), 0)));
  const step = 10 ** Math.floor(Math.log10(max));
  const top = Math.ceil(max / step) * step;
  const W = 760;
  const left = 70;
  const plotH = 300;
  const topY = 40;
  const barW = 90;
  const gap = 60;
  const legendX = left + bars.length * (barW + gap) + 20;
  const H = Math.max(topY + plotH + 50, topY + names.length * 20 + 20);
  const y = (us: number) => topY + plotH - (us / top) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeHtml(title)}</title>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14">${escapeHtml(title)}</text>`,
  ];
  for (let t = 0; t <= top; t += step)
    out.push(
      `<line x1="${left}" x2="${legendX - 20}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end">${t.toLocaleString('en')} µs</text>`,
    );
  bars.forEach((b, i) => {
    const x = left + 20 + i * (barW + gap);
    let acc = 0;
    b.parts.forEach((p, j) => {
      const us = Math.max(0, p.us);
      if (us === 0) return;
      out.push(
        `<rect x="${x}" y="${y(acc + us)}" width="${barW}" height="${y(acc) - y(acc + us)}" fill="${colour(j)}">` +
          `<title>${escapeHtml(`${p.name}: ${us.toFixed(0)} µs`)}</title></rect>`,
      );
      acc += us;
    });
    out.push(
      `<text x="${x + barW / 2}" y="${y(acc) - 6}" text-anchor="middle">${acc.toFixed(0)} µs</text>`,
      `<text x="${x + barW / 2}" y="${topY + plotH + 18}" text-anchor="middle">${escapeHtml(b.label)}</text>`,
    );
  });
  names.forEach((n, j) => {
    const ly = topY + j * 20;
    out.push(
      `<rect x="${legendX}" y="${ly}" width="12" height="12" fill="${colour(j)}"/>`,
      `<text x="${legendX + 18}" y="${ly + 10}">${escapeHtml(n)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
