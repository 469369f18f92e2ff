import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attribute, type CpuProfile, type ProfileNode } from '../../loadtest/cpuprofile-stages.ts';
import { flameGraphSvg } from '../../loadtest/flame-svg.ts';
import { GC_STAGE, NODE_STAGE, STAGE_RULES } from '../../loadtest/profile-stage-rules.ts';

const ROOT = join(import.meta.dirname, '../..');
const file = (path: string) => pathToFileURL(join(ROOT, path)).href;
const SCORER = 'services/api/scorer.ts';
const stringifyLine =
  readFileSync(join(ROOT, SCORER), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('JSON.stringify(response)')) + 1;

/** A profile of a tree given as [id, parent, function, url, positionTicks?], one sample per entry of `samples`. */
function profile(
  tree: [number, number | null, string, string, ProfileNode['positionTicks']?][],
  samples: number[],
): CpuProfile {
  const nodes: ProfileNode[] = tree.map(([id, , functionName, url, positionTicks]) => ({
    id,
    callFrame: { functionName, url, lineNumber: 0 },
    children: tree.filter(([, p]) => p === id).map(([c]) => c),
    ...(positionTicks && { positionTicks }),
  }));
  // Samples 100 µs apart, the first at startTime + its delta = 1000; the last lasts until endTime.
  return {
    nodes,
    startTime: 900,
    endTime: 1000 + samples.length * 100,
    samples,
    timeDeltas: samples.map(() => 100),
  };
}

describe('the stage attribution of a CPU profile (npm run bench:profile)', () => {
  const p = profile(
    [
      [1, null, '(root)', ''],
      [2, 1, '(garbage collector)', ''],
      [3, 1, '(idle)', ''],
      [4, 1, 'parserOnHeadersComplete', 'node:_http_common'],
      [5, 4, 'handle', file('node_modules/router/lib/layer.js')],
      [6, 5, 'anonymous', file('services/api/routes/score.ts')],
      [7, 6, 'validateScoreRequest', file('shared/contract/validation.ts')],
      [8, 7, 'safeParse', file('node_modules/zod/v4/core/parse.js')],
      [
        9,
        6,
        'score',
        file(SCORER),
        [
          { line: stringifyLine, ticks: 3 },
          { line: 1, ticks: 1 },
        ],
      ],
      [10, 9, 'scoreChallenger', file(SCORER)],
      [11, 10, 'score', file('shared/scoring/engine.ts')],
      [12, 6, 'admit', file('services/api/controls/controls.ts')],
      [13, 12, 'sendCommand', file('node_modules/ioredis/built/Redis.js')],
      [14, 13, 'writeGeneric', 'node:internal/stream_base_commons'],
    ],
    [2, 3, 4, 8, 9, 11, 13, 8, 14],
  );
  const a = attribute(p, STAGE_RULES, 0, Number.POSITIVE_INFINITY);
  const us = (stage: string) => a.byStage.get(stage) ?? 0;

  it('gives each sample the stage of the innermost frame a rule names', () => {
    expect(us(GC_STAGE)).toBe(100);
    expect(us(NODE_STAGE)).toBe(200); // the HTTP parser; a socket write, whoever called it
    expect(us('validation (body read, JSON parse, schema)')).toBe(200); // zod under validation.ts
    expect(us('I/O clients: ioredis')).toBe(100); // ioredis's own code, under the controls
    expect(us('controls (rate, credits, idempotency; caller budget)')).toBe(0);
    // Node's own time, split by who called it: the socket write was ioredis's.
    expect(a.nodeUnder.get('I/O clients: ioredis')).toBe(100);
    expect([...a.nodeUnder.values()].reduce((x, y) => x + y, 0)).toBe(200);
  });

  it('gives the challenger what runs under it, and a line its share of a function', () => {
    expect(us('challenger')).toBe(100);
    expect(us('response serialization')).toBeCloseTo(75);
    expect(us('scoring (engine, shaping)')).toBeCloseTo(25);
  });

  it('leaves idle out, and counts only the window', () => {
    expect(a.idleUs).toBe(100);
    expect(a.busyUs).toBe(800);
    // Samples at 1000..1700: [1050, 1250) is half of the sample at 1000 (GC) and all of 1100 (idle)
    // and half of 1200 (the HTTP parser).
    const w = attribute(p, STAGE_RULES, 1050, 1250);
    expect(w.busyUs).toBe(100);
    expect(w.byStage.get(GC_STAGE)).toBe(50);
    expect(w.byStage.get(NODE_STAGE)).toBe(50);
  });

  it('draws every frame with time in the flame graph', () => {
    const svg = flameGraphSvg(
      p,
      new Map([
        [8, 100],
        [11, 100],
      ]),
      a.stageOf,
      [...a.byStage.keys()],
      'test',
    );
    expect(svg).toContain('scoreChallenger');
    expect(svg).toContain('safeParse');
    expect(svg).not.toContain('writeGeneric'); // no time in the given self times
  });
});
