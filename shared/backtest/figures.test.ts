import { describe, expect, it } from 'vitest';
import { replay } from '../scoring/replay.ts';
import { findVersion } from '../scoring/versions.ts';
import { BacktestTally, figures, psi } from './figures.ts';
import type { SignatureGroup } from './signatures.ts';

const candidate = findVersion('2026.12.1')!;
const baseline = findVersion('2026.12.2')!;

const group = (fired: string[], scores: number, label = ''): SignatureGroup => ({
  version: baseline.id,
  signature: {
    components: fired.length
      ? [{ component: 'ip_network_type', verdict: 'elevated', detail: 'IP_HOSTING' }]
      : [{ component: 'ip_network_type', verdict: 'clean', detail: 'IP_ACCESS_NETWORK' }],
    fired,
    reports: 0,
    context: false,
  },
  stored: { raw: 0, score: 0, band: 'minimal' },
  label,
  scores,
});

describe('backtest figures', () => {
  it('is zero for identical distributions and grows with the shift', () => {
    const even = { minimal: 0.2, low: 0.2, medium: 0.2, high: 0.2, critical: 0.2 };
    expect(psi(even, even)).toBe(0);
    const shifted = { minimal: 0.1, low: 0.1, medium: 0.2, high: 0.3, critical: 0.3 };
    expect(psi(shifted, even)).toBeCloseTo(2 * (-0.1 * Math.log(0.5)) + 2 * (0.1 * Math.log(1.5)), 12);
    // An empty band is floored, not infinite.
    expect(Number.isFinite(psi({ ...even, critical: 0 }, even))).toBe(true);
  });

  it('counts outcomes by band and judges the caps on the replayed shares', () => {
    const t = new BacktestTally(candidate, baseline, findVersion);
    t.add(group([], 90, 'not_fraud'));
    t.add(group(['IP_HOSTING'], 10, 'confirmed_fraud'));
    const f = figures(t, { [candidate.id]: { minimal: 1 } });
    expect(f.scores).toBe(100);
    const hosting = (['minimal', 'low', 'medium', 'high', 'critical'] as const).find(
      (b) => f.candidate.bands[b].scores === 10,
    )!;
    expect(f.candidate.bands[hosting].fraud).toBe(10);
    expect(f.candidate.bands.minimal.not_fraud).toBe(90);
    expect(f.candidate.bands.minimal.fraud_rate_of_reported).toBe(0);
    expect(f.candidate.not_fraud_friction).toBe(0);
    const at = (from: number) =>
      ['minimal', 'low', 'medium', 'high', 'critical'].indexOf(hosting) >= from ? 0.1 : 0;
    expect(f.candidate.caps.medium_plus.share).toBe(at(2));
    expect(f.candidate.caps.high_plus.share).toBe(at(3));
    expect(f.candidate.caps_pass).toBe(at(3) <= 0.05);
    expect(f.candidate.psi).toBeGreaterThan(0);
    expect(f.baseline.psi).toBeNull(); // no reference rates given for it
  });

  it("infers a context's effect only for rows that do not keep it", () => {
    const t = new BacktestTally(candidate, baseline, findVersion);
    // A hosting address scored with a context that raised its band.
    const kept = group(['IP_HOSTING'], 7);
    kept.signature = { ...kept.signature, context: true, effect: 'band_elevated' };
    const made = replay(kept.signature, baseline);
    kept.stored = { raw: made.raw, score: made.score, band: made.band };
    t.add(kept);
    expect(t.contextInferred + t.contextAmbiguous).toBe(0);
    // The same score in a row older than context_effect, of a tier without context_applied.
    const { effect: _, ...older } = kept.signature;
    t.add({ ...kept, signature: older, scores: 3 });
    expect(t.contextInferred + t.contextAmbiguous).toBe(3);
    expect(t.reproduced).toBe(10);
  });
});
