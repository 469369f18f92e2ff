/**
 * The replay's premise: a score under any version depends only on what the audit row keeps (the
 * tier's components, the fired codes, the ledger's report count, posture, moment, context effect).
 * Real subjects (the bootstrap draw on the checked-in data) are scored as the API scores them, the
 * row each tier would store is reduced to its signature, and the replay of that signature under
 * every version must equal the engine's score of the full evidence under that version.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { effectOf } from '../backtest/signatures.ts';
import type { Context } from '../contract/request.ts';
import { TIERS, type Tier } from '../contract/response.ts';
import { calibrationSources } from './calibration/build.ts';
import { drawBootstrap } from './calibration/bootstrap.ts';
import { rng } from './calibration/population.ts';
import { score, type RiskPosture } from './engine.ts';
import { gatherEvidence, type EvidenceSources, type Reputation } from './evidence.ts';
import type { ComponentKey } from './reason-codes.ts';
import { replay, reproduces, type ReplaySignature } from './replay.ts';
import { tierEvidence } from './tier-evidence.ts';
import { SCORE_VERSIONS } from './versions.ts';

const POSTURES: (RiskPosture | undefined)[] = [
  undefined,
  'balanced',
  'recall_weighted',
  'precision_weighted',
];
const MOMENTS = [undefined, 'onboarding', 'payment', 'authentication'] as const;
const GEOS = [
  {},
  { operating_countries: ['GB'] },
  { diaspora_corridors: ['NG', 'IN'] },
  { operating_countries: ['US'], diaspora_corridors: ['GB'] },
];
const UNAVAILABLE: ComponentKey[][] = [[], [], [], ['ip_tor_exit'], ['ndc_range_risk', 'ip_vpn_proxy']];

/** The signature of the audit row the API would write for this score and tier. */
function signatureOf(
  scored: ReturnType<typeof score>,
  tier: Tier,
  reputation: Reputation | undefined,
  context: Context | undefined,
): ReplaySignature {
  const evidence = tierEvidence(scored, tier);
  const applied = tier === 'verify' ? undefined : scored.context_applied;
  const effect = effectOf(applied);
  return {
    components: evidence.components,
    fired: scored.fired,
    reports: reputation !== undefined && reputation !== 'unavailable' ? reputation.reports : 0,
    context: context !== undefined,
    ...(context?.risk_posture ? { posture: context.risk_posture } : {}),
    ...(context?.collection_point.moment ? { moment: context.collection_point.moment } : {}),
    ...(effect ? { effect } : {}),
  };
}

describe('replay of a retained score', () => {
  let sources: EvidenceSources;
  beforeAll(() => {
    sources = calibrationSources();
  });

  it('gives every version the score and band the engine gives the full evidence', () => {
    const { subjects, reports } = drawBootstrap(3000, 77);
    const rand = rng(5);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    let checked = 0;
    let contextual = 0;
    subjects.forEach((subject, i) => {
      const tier = pick(TIERS);
      // The ledger is consulted only by tiers that include it (bureau), as services/api/scorer.ts does.
      const reputation: Reputation | undefined =
        tier === 'bureau' ? (rand() < 0.05 ? 'unavailable' : { reports: reports[i]! }) : undefined;
      const unavailable = new Set(pick(UNAVAILABLE));
      const evidence = gatherEvidence(subject, { ...sources, unavailable }, reputation);
      const withContext = rand() < 0.6;
      const context = withContext
        ? ({
            sector: 'test',
            geography: pick(GEOS),
            collection_point: pick(MOMENTS) ? { moment: pick(MOMENTS.slice(1)) } : {},
            ...(pick(POSTURES) ? { risk_posture: pick(POSTURES.slice(1)) } : {}),
          } as Context)
        : undefined;
      const own = pick(SCORE_VERSIONS);
      const stored = score({ evidence, version: own, context });
      const sig = signatureOf(stored, tier, reputation, context);
      if (sig.context && sig.effect === undefined && context?.geography !== GEOS[0]) {
        // A verify row with a geography keeps no context_applied: the backtest counts it apart.
        return;
      }
      if (context) contextual++;
      expect(reproduces(sig, own, { raw: stored.raw, score: stored.score, band: stored.band })).toBe(true);
      for (const v of SCORE_VERSIONS) {
        const direct = score({ evidence, version: v, context });
        const r = replay(sig, v);
        expect({ raw: r.raw, score: r.score, band: r.band, action: r.action }).toEqual({
          raw: direct.raw,
          score: direct.score,
          band: direct.band,
          action: direct.recommended_action,
        });
        checked++;
      }
    });
    // Enough of each kind to mean something.
    expect(checked).toBeGreaterThan(10_000);
    expect(contextual).toBeGreaterThan(1000);
  });

  it('tells a row that does not reproduce', () => {
    const sig: ReplaySignature = {
      components: [{ component: 'ip_network_type', verdict: 'elevated', detail: 'IP_HOSTING' }],
      fired: ['IP_HOSTING'],
      reports: 0,
      context: false,
    };
    const v = SCORE_VERSIONS.at(-1)!;
    const r = replay(sig, v);
    expect(reproduces(sig, v, { raw: r.raw, score: r.score, band: r.band })).toBe(true);
    expect(reproduces(sig, v, { raw: r.raw + 1, score: r.score, band: r.band })).toBe(false);
    expect(reproduces(sig, v, { raw: r.raw, score: r.score, band: r.band === 'low' ? 'high' : 'low' })).toBe(
      false,
    );
  });
});
