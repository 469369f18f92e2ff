/**
 * A backtest as a Markdown report with three SVG charts (band rates side by side, the movement
 * matrix as a heat map, fraud capture by band), written into a folder the operator chooses.
 * How to read them: docs/data.md "Backtests".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import escapeHtml from 'escape-html';
import type { Band } from '../vocabulary/score-terms.ts';
import { BANDS, CAPS, ROLES, type Figures, type Role } from './figures.ts';
import type { RunMeta } from './store.ts';

const FONT = 'font-family="DejaVu Sans, sans-serif"';
const COLORS: Record<Role, string> = { baseline: '#7f8c8d', candidate: '#2471a3' };
const pct = (v: number | null, digits = 2) => (v === null ? 'n/a' : `${(v * 100).toFixed(digits)} %`);
const text = (x: number, y: number, s: string, extra = '', size = 13) =>
  `<text x="${x}" y="${y}" ${FONT} font-size="${size}" ${extra}>${escapeHtml(s)}</text>`;

function svg(w: number, h: number, title: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`,
    `<rect width="${w}" height="${h}" fill="white"/>`,
    text(w / 2, 24, title, 'text-anchor="middle" font-weight="bold"', 16),
    ...body,
    '</svg>',
  ].join('\n');
}

/** Grouped bars: one group per band, one bar per version; values are shares 0..1. */
function groupedBars(title: string, f: Figures, value: (role: Role, b: Band) => number, yLabel: string) {
  const W = 760;
  const H = 420;
  const M = { left: 70, right: 20, top: 50, bottom: 80 };
  const plotH = H - M.top - M.bottom;
  const groupW = (W - M.left - M.right) / BANDS.length;
  const max = Math.max(0.0001, ...BANDS.flatMap((b) => ROLES.map((r) => value(r, b))));
  const top = Math.min(1, Math.ceil((max * 1.1) / 0.05) * 0.05);
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  const body: string[] = [];
  for (let i = 0; i <= 5; i++) {
    const v = (top * i) / 5;
    body.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    body.push(text(M.left - 8, y(v) + 4, pct(v, 1), 'text-anchor="end"', 11));
  }
  BANDS.forEach((b, i) => {
    const x0 = M.left + i * groupW;
    ROLES.forEach((r, j) => {
      const v = value(r, b);
      const bw = groupW * 0.35;
      const x = x0 + groupW * 0.12 + j * (bw + groupW * 0.06);
      body.push(
        `<rect x="${x}" y="${y(v)}" width="${bw}" height="${M.top + plotH - y(v)}" fill="${COLORS[r]}"/>`,
      );
      body.push(text(x + bw / 2, y(v) - 4, pct(v, 1), 'text-anchor="middle"', 10));
    });
    body.push(text(x0 + groupW / 2, M.top + plotH + 18, b, 'text-anchor="middle"'));
  });
  body.push(text(16, M.top + plotH / 2, yLabel, `transform="rotate(-90 16 ${M.top + plotH / 2})"`));
  ROLES.forEach((r, j) => {
    const x = M.left + j * 300;
    body.push(`<rect x="${x}" y="${H - 34}" width="14" height="14" fill="${COLORS[r]}"/>`);
    body.push(text(x + 20, H - 22, `${r} ${f[r].version}`));
  });
  return svg(W, H, title, body);
}

/** The movement matrix: rows are the baseline's bands, columns the candidate's; shade by share of the row. */
function heatMap(f: Figures): string {
  const cell = 96;
  const M = { left: 150, top: 90 };
  const W = M.left + cell * 5 + 30;
  const H = M.top + cell * 5 + 50;
  const body: string[] = [];
  BANDS.forEach((to, j) =>
    body.push(text(M.left + j * cell + cell / 2, M.top - 10, to, 'text-anchor="middle"')),
  );
  body.push(
    text(M.left + (cell * 5) / 2, M.top - 34, `candidate ${f.candidate.version}`, 'text-anchor="middle"'),
  );
  body.push(
    text(
      20,
      M.top + (cell * 5) / 2,
      `baseline ${f.baseline.version}`,
      `transform="rotate(-90 20 ${M.top + (cell * 5) / 2})" text-anchor="middle"`,
    ),
  );
  BANDS.forEach((from, i) => {
    const rowTotal = BANDS.reduce((s, to) => s + f.movement[from][to], 0);
    body.push(text(M.left - 10, M.top + i * cell + cell / 2 + 4, from, 'text-anchor="end"'));
    BANDS.forEach((to, j) => {
      const count = f.movement[from][to];
      const share = rowTotal === 0 ? 0 : count / rowTotal;
      const x = M.left + j * cell;
      const yy = M.top + i * cell;
      // Blue for the diagonal (kept), orange off it (moved); stronger with the row's share.
      const hue = i === j ? '36,113,163' : '211,84,0';
      body.push(
        `<rect x="${x}" y="${yy}" width="${cell}" height="${cell}" fill="rgba(${hue},${(0.08 + share * 0.92).toFixed(3)})" stroke="white"/>`,
      );
      const ink = share > 0.55 ? 'fill="white"' : '';
      body.push(
        text(x + cell / 2, yy + cell / 2 - 2, count.toLocaleString('en'), `text-anchor="middle" ${ink}`),
      );
      body.push(text(x + cell / 2, yy + cell / 2 + 16, pct(share, 1), `text-anchor="middle" ${ink}`, 11));
    });
  });
  return svg(W, H, 'Band movement (share of the baseline band)', body);
}

export interface WrittenReport {
  markdown: string;
  files: string[];
}

function tableRow(cells: (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** Who was compared over what, how much reproduced, and the caps verdict. */
function summarySection(meta: RunMeta, f: Figures): string[] {
  const c = f.candidate;
  const b = f.baseline;
  return [
    `# Backtest ${meta.run_id}`,
    '',
    `Candidate **${c.version}** against baseline **${b.version}**, scores made from ${meta.from} up to (not including) ${meta.to}` +
      `${meta.org_id ? `, organisation ${meta.org_id}` : ', all organisations'}; run at ${meta.ran_at.toISOString()}.`,
    '',
    `${f.scores.toLocaleString('en')} distinct scores replayed (${f.groups.toLocaleString('en')} signature groups); ` +
      `${f.reproduced.toLocaleString('en')} of them (${pct(f.scores ? f.reproduced / f.scores : null)}) gave back their stored raw risk, score and band under the version that made them` +
      `${f.unknown_version ? `; ${f.unknown_version} of versions unknown here` : ''}` +
      `${f.context_inferred ? `; ${f.context_inferred} with a context whose effect the row does not keep, inferred from the stored band` : ''}` +
      `${f.context_ambiguous ? `; ${f.context_ambiguous} with a context effect the stored band leaves ambiguous, replayed without it` : ''}.`,
    '',
    `**Score quality caps (candidate): ${c.caps_pass ? 'PASS' : 'FAIL'}**`,
    '',
    tableRow(['cap', 'limit', `candidate ${c.version}`, '', `baseline ${b.version}`, '']),
    '|---|---|---|---|---|---|',
    ...CAPS.map((cap) =>
      tableRow([
        `${cap.from} or above`,
        `<= ${pct(cap.max, 0)}`,
        pct(c.caps[cap.name].share),
        c.caps[cap.name].pass ? 'pass' : 'FAIL',
        pct(b.caps[cap.name].share),
        b.caps[cap.name].pass ? 'pass' : 'FAIL',
      ]),
    ),
    '',
  ];
}

function bandsSection(f: Figures, charts: Record<string, string>): string[] {
  const c = f.candidate;
  const b = f.baseline;
  return [
    '## Band rates',
    '',
    `![band rates](${charts.bands})`,
    '',
    tableRow(['band', `baseline ${b.version}`, 'share', `candidate ${c.version}`, 'share']),
    '|---|---|---|---|---|',
    ...BANDS.map((band) =>
      tableRow([
        band,
        b.bands[band].scores,
        pct(b.bands[band].share),
        c.bands[band].scores,
        pct(c.bands[band].share),
      ]),
    ),
    '',
    `Population stability index against each version's reference population (calibration/band-rates.json): ` +
      `candidate ${c.psi === null ? 'n/a' : c.psi.toFixed(4)}, baseline ${b.psi === null ? 'n/a' : b.psi.toFixed(4)} ` +
      '(below 0.1 stable, 0.1 to 0.25 a moderate shift, above 0.25 a major one).',
    '',
  ];
}

function movementSection(f: Figures, charts: Record<string, string>): string[] {
  return [
    '## Movement',
    '',
    `![movement](${charts.movement})`,
    '',
    tableRow([`baseline \\ candidate`, ...BANDS]),
    `|---|${BANDS.map(() => '---').join('|')}|`,
    ...BANDS.map((from) => tableRow([from, ...BANDS.map((to) => f.movement[from][to])])),
    '',
  ];
}

/** Outcomes by band and version, and what each version captures of reported fraud. */
function outcomesSection(meta: RunMeta, f: Figures, charts: Record<string, string>): string[] {
  const c = f.candidate;
  const b = f.baseline;
  return [
    '## Outcomes',
    '',
    `![fraud capture](${charts.capture})`,
    '',
    'Each score labelled by the latest outcome reported on it; fraud is `confirmed_fraud` or `chargeback`.',
    '',
    tableRow([
      'band',
      'version',
      'scores',
      'with outcome',
      'fraud',
      'not_fraud',
      'fraud rate (of reported)',
      'fraud rate (of all)',
    ]),
    '|---|---|---|---|---|---|---|---|',
    ...BANDS.flatMap((band) =>
      ROLES.map((r) => {
        const x = f[r].bands[band];
        return tableRow([
          band,
          f[r].version,
          x.scores,
          x.with_outcome,
          x.fraud,
          x.not_fraud,
          pct(x.fraud_rate_of_reported),
          pct(x.fraud_rate_of_all),
        ]);
      }),
    ),
    '',
    tableRow(['', `baseline ${b.version}`, `candidate ${c.version}`]),
    '|---|---|---|',
    tableRow([
      'reported fraud at high or above',
      pct(b.fraud_capture_high_plus),
      pct(c.fraud_capture_high_plus),
    ]),
    tableRow(['reported fraud at critical', pct(b.fraud_capture_critical), pct(c.fraud_capture_critical)]),
    tableRow([
      'not_fraud scores blocked or challenged',
      pct(b.not_fraud_friction),
      pct(c.not_fraud_friction),
    ]),
    '',
    `The same figures are rows of \`backtests\` with run_id = '${meta.run_id}' (docs/data.md "Backtests").`,
    '',
  ];
}

export function markdown(meta: RunMeta, f: Figures, charts: Record<string, string>): string {
  return [
    ...summarySection(meta, f),
    ...bandsSection(f, charts),
    ...movementSection(f, charts),
    ...outcomesSection(meta, f, charts),
  ].join('\n');
}

/** Writes report.md and the charts (SVG, and PNG with `png`) into `dir`. */
export async function writeReport(
  dir: string,
  meta: RunMeta,
  f: Figures,
  png = false,
): Promise<WrittenReport> {
  mkdirSync(dir, { recursive: true });
  const totalFraud = (r: Role) => BANDS.reduce((s, b) => s + f[r].bands[b].fraud, 0);
  const charts = {
    bands: groupedBars('Band rates', f, (r, b) => f[r].bands[b].share, 'share of scores'),
    movement: heatMap(f),
    capture: groupedBars(
      'Fraud capture by band (share of reported fraud)',
      f,
      (r, b) => (totalFraud(r) === 0 ? 0 : f[r].bands[b].fraud / totalFraud(r)),
      'share of reported fraud',
    ),
  };
  const files: string[] = [];
  const names: Record<string, string> = {};
  for (const [name, body] of Object.entries(charts)) {
    const file = `${name}.svg`;
    writeFileSync(join(dir, file), body);
    files.push(join(dir, file));
    names[name] = file;
    if (png) {
      const { Resvg } = await import('@resvg/resvg-js');
      const out = `${name}.png`;
      writeFileSync(join(dir, out), new Resvg(body, { font: { loadSystemFonts: true } }).render().asPng());
      files.push(join(dir, out));
      names[name] = out;
    }
  }
  const md = markdown(meta, f, names);
  writeFileSync(join(dir, 'report.md'), md);
  files.unshift(join(dir, 'report.md'));
  return { markdown: md, files };
}
