/**
 * Micro-benchmark of one scoring call without HTTP: `npm run bench:score [-- iterations]`.
 *
 * Rows: `validate` is the schema pass of the body and Idempotency-Key; `score` is evidence
 * gathering (in-memory resolution), the engine and response shaping for a bureau caller with a
 * shadow version and a context, i.e. the most work one request can ask for; `total` is both.
 * Subjects rotate through a fixed mix so caches of one input do not flatter the numbers.
 */
import { validateScoreRequest } from '../shared/contract/validation.ts';
import { newScoreId } from '../shared/ids.ts';
import { score } from '../shared/scoring/engine.ts';
import { loadResolutionData } from '../shared/resolution/resolution-data.ts';
import { gatherEvidence } from '../shared/scoring/evidence.ts';
import { shapeResponse } from '../shared/contract/shape.ts';
import { DEFAULT_VERSION, findVersion } from '../shared/scoring/versions.ts';

const iterations = Number(process.argv[2] ?? 50_000);
const data = loadResolutionData();
const shadowVersion = findVersion('2026.08.0')!;
const context = {
  sector: 'remittance',
  geography: { operating_countries: ['GB'], diaspora_corridors: ['NG'] },
  collection_point: { channel: 'voice_call_centre' as const, moment: 'payment' as const },
};
const subjects = [
  { phone_number: '+447911123456', ip_address: '81.2.69.142' },
  { phone_number: '+444012345678' },
  { phone_number: '+4407911123456', ip_address: '192.0.2.1' },
  { phone_number: '+2348031234567', ip_address: '2a00:1450:4009:81f::200e' },
  { ip_address: '8.8.8.8' },
];
const bodies = subjects.map((subject) => ({ subject, context, options: { shadow_version: '2026.08.0' } }));

function scoreOnce(i: number): void {
  const body = bodies[i % bodies.length]!;
  const evidence = gatherEvidence(body.subject, data, { reports: 0 });
  const scored = score({ evidence, version: DEFAULT_VERSION, context });
  const shadow = score({ evidence, version: shadowVersion, context });
  shapeResponse({
    scoreId: newScoreId(),
    tier: 'bureau',
    versionId: DEFAULT_VERSION.id,
    scored,
    explain: true,
    shadow: { score_version: shadowVersion.id, score: shadow.score, band: shadow.band },
    latencyMs: 0,
  });
}

function validateOnce(i: number): void {
  const v = validateScoreRequest(bodies[i % bodies.length], 'bench-key');
  if (!v.ok) throw new Error('bench body is invalid');
}

function measure(fn: (i: number) => void): { median: number; p99: number; mean: number } {
  for (let i = 0; i < 20_000; i++) fn(i); // warm up the JIT and let the heap settle
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1_000;
  }
  const sum = samples.reduce((s, x) => s + x, 0);
  samples.sort();
  return {
    median: samples[Math.floor(iterations / 2)]!,
    p99: samples[Math.floor(iterations * 0.99)]!,
    mean: sum / iterations,
  };
}

const rows = {
  validate: measure(validateOnce),
  score: measure(scoreOnce),
  total: measure((i) => {
    validateOnce(i);
    scoreOnce(i);
  }),
};
console.log(`node ${process.version}, ${iterations} calls per row, microseconds per call`);
console.log('row        median      p99     mean');
for (const [name, r] of Object.entries(rows)) {
  console.log(
    `${name.padEnd(8)} ${r.median.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${r.mean.toFixed(1).padStart(8)}`,
  );
}
