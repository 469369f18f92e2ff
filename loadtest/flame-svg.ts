/**
 * A flame graph of a CPU-profile window as SVG (root at the bottom, width = CPU time), each frame
 * coloured by the stage that most of its time belongs to, with a legend of those stages. Small
 * enough to keep here rather than pull in a renderer; frames under half a pixel wide are dropped.
 */
import type { CpuProfile, ProfileNode } from './cpuprofile-stages.ts';

const W = 1400;
const ROW = 17;
const FONT = 'font-family="DejaVu Sans Mono, monospace"';
const PALETTE = [
  '#e6550d',
  '#3182bd',
  '#31a354',
  '#756bb1',
  '#d6616b',
  '#8c6d31',
  '#e7ba52',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
  '#ff9896',
  '#9edae5',
  '#c49c94',
  '#dbdb8d',
  '#aec7e8',
  '#98df8a',
  '#c5b0d5',
  '#f7b6d2',
  '#636363',
  '#393b79',
];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const frameName = (n: ProfileNode) => {
  const file = n.callFrame.url.replace(/^file:\/\/.*?\/(services|shared|node_modules|loadtest)\//, '$1/');
  return `${n.callFrame.functionName || '(anonymous)'} ${file ? `${file}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
};

export function flameGraphSvg(
  profile: CpuProfile,
  self: Map<number, number>,
  stageOf: Map<number, string>,
  stages: string[],
  title: string,
): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const color = new Map(stages.map((s, i) => [s, PALETTE[i % PALETTE.length]!]));
  const total = new Map<number, number>();
  const mix = new Map<number, Map<string, number>>();
  const visit = (id: number): number => {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return 0;
    const m = new Map<string, number>();
    const own = self.get(id) ?? 0;
    if (own > 0) m.set(stageOf.get(id) ?? 'other', own);
    let sum = own;
    for (const c of node.children ?? []) {
      sum += visit(c);
      for (const [s, us] of mix.get(c) ?? []) m.set(s, (m.get(s) ?? 0) + us);
    }
    total.set(id, sum);
    mix.set(id, m);
    return sum;
  };
  const root = profile.nodes[0]!;
  const all = visit(root.id);
  const rects: string[] = [];
  let maxDepth = 0;
  const layout = (id: number, x: number, depth: number) => {
    const w = (total.get(id)! / all) * W;
    if (w < 0.5) return;
    maxDepth = Math.max(maxDepth, depth);
    if (id !== root.id) {
      const dominant = [...mix.get(id)!].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'other';
      const name = frameName(byId.get(id)!);
      const share = ((total.get(id)! / all) * 100).toFixed(1);
      const label =
        w > 40
          ? `<text x="${(x + 3).toFixed(1)}" y="${-depth * ROW + 12}" ${FONT} font-size="11">${esc(name.slice(0, Math.floor((w - 6) / 6.7)))}</text>`
          : '';
      rects.push(
        `<g><title>${esc(name)}: ${share} % (${esc(dominant)})</title><rect x="${x.toFixed(1)}" y="${-depth * ROW}" width="${(w - 0.3).toFixed(1)}" height="${ROW - 1}" fill="${color.get(dominant) ?? '#cccccc'}"/>${label}</g>`,
      );
    }
    let cx = x;
    for (const c of byId.get(id)!.children ?? []) {
      if (!total.has(c)) continue;
      layout(c, cx, id === root.id ? depth : depth + 1);
      cx += (total.get(c)! / all) * W;
    }
  };
  layout(root.id, 0, 0);
  const legendRows = Math.ceil(stages.length / 3);
  const top = 40 + legendRows * 18;
  const graphH = (maxDepth + 1) * ROW;
  const height = top + graphH + 10;
  const legend = stages.map((s, i) => {
    const x = 10 + (i % 3) * (W / 3);
    const y = 40 + Math.floor(i / 3) * 18;
    return `<rect x="${x}" y="${y - 11}" width="12" height="12" fill="${color.get(s)}"/><text x="${x + 18}" y="${y}" font-family="DejaVu Sans" font-size="12">${esc(s)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}"><rect width="${W}" height="${height}" fill="white"/><text x="10" y="22" font-family="DejaVu Sans" font-size="16">${esc(title)}</text>${legend.join('')}<g transform="translate(0 ${top + graphH - ROW})">${rects.join('')}</g></svg>`;
}
