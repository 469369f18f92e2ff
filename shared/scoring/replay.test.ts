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
import type { RiskPosture } from '../vocabulary/scoring-input.ts';
import type { Reputation } from '../capabilities/evidence.ts';
import { calibrationSources } from './calibration/build.ts';
import { drawBootstrap } from './calibration/bootstrap.ts';
import { rng } from './calibration/population.ts';
import { bandOf, score, type ScoreVersion } from './engine.ts';
import { storedFinding, type StoredFindings } from '../capabilities/definition.ts';
import { COMPONENT_ORDER } from '../capabilities/component-order.ts';
import { type ContextEffect, TIERS, type Tier } from '../vocabulary/score-terms.ts';
import type { ReasonCode } from './reason-codes.ts';
import { includedIn } from './tiers.ts';
import { gatherEvidence, type EvidenceSources } from './evidence.ts';
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

/**
 * Every code of every capability, under every version and tier: the findings a score could have
 * (each capability giving one of its declared codes with its declared verdict), banded by the
 * engine, reduced to the row a tier would store, must replay to the same raw risk, score and band.
 * A code a hidden component gives with points but without firing, or a firing code whose verdict
 * its capability does not declare, fails here.
 */
describe('replay of every reason code', () => {
  const rand = rng(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  type Def = (typeof COMPONENT_ORDER)[number];
  const codesOf = (d: Def) => Object.keys(d.replay.verdicts);
  const findingOf = (d: Def, code: string, reports: number) =>
    code === 'SOURCE_UNAVAILABLE'
      ? { verdict: 'unavailable' as const, detail: code }
      : storedFinding(d.replay as StoredFindings<string>, code, reports);

  function storedScore(
    chosen: Map<Def, string>,
    version: ScoreVersion,
    reports: number,
    posture: RiskPosture | undefined,
    effect: ContextEffect | undefined,
  ) {
    const components = COMPONENT_ORDER.flatMap((d) => {
      const code = chosen.get(d);
      if (code === undefined) return [];
      const f = findingOf(d, code, reports);
      return [
        {
          component: d.key,
          verdict: f.verdict,
          contribution: (version.points[code as ReasonCode] ?? 0) * (f.times ?? 1),
          detail: code,
        },
      ];
    });
    const raw = components.reduce((s, c) => s + c.contribution, 0);
    const ledger = components.find((c) => c.component === 'reputation_ledger');
    const ledgerReports = ledger?.detail === 'REPUTATION_REPORTED' ? reports : undefined;
    const banded = bandOf(components, raw, version, {
      ...(posture ? { posture } : {}),
      ...(effect ? { effect } : {}),
      ...(ledgerReports !== undefined ? { ledgerReports } : {}),
    });
    const fired = components
      .filter((c) => c.verdict === 'elevated' || c.verdict === 'adverse')
      .map((c) => c.detail);
    return { components, raw, fired, ...banded };
  }

  it('replays each code exactly under the version that gave it, for every tier', () => {
    let checked = 0;
    for (const version of SCORE_VERSIONS)
      for (const tier of TIERS)
        for (const def of COMPONENT_ORDER)
          for (const code of [...codesOf(def), 'SOURCE_UNAVAILABLE'])
            for (let round = 0; round < 4; round++) {
              // Below bureau the ledger is never consulted: no row of those tiers has its component.
              const consulted = (d: Def) => tier === 'bureau' || d.key !== 'reputation_ledger';
              if (!consulted(def)) continue;
              const chosen = new Map<Def, string>();
              for (const other of COMPONENT_ORDER)
                if (other !== def && consulted(other) && rand() < 0.7)
                  chosen.set(other, pick(codesOf(other)));
              chosen.set(def, code);
              const reports = code === 'REPUTATION_REPORTED' || rand() < 0.5 ? 1 + (round % 4) : 0;
              const posture = pick(POSTURES);
              const context = rand() < 0.5;
              const effect = context ? pick(['none', 'band_elevated', 'band_reduced'] as const) : undefined;
              const stored = storedScore(chosen, version, reports, posture, effect);
              const has = includedIn(tier, []);
              const sig: ReplaySignature = {
                components: stored.components.filter((c) => has.has(c.component)),
                fired: stored.fired,
                reports: tier === 'bureau' ? reports : 0,
                context,
                ...(posture ? { posture } : {}),
                ...(effect ? { effect } : {}),
              };
              const r = replay(sig, version);
              expect(
                { raw: r.raw, score: r.score, band: r.band },
                `${version.id} ${tier} ${[...chosen.values()].join(',')} reports ${reports}`,
              ).toEqual({ raw: stored.raw, score: stored.score, band: stored.band });
              checked++;
            }
    expect(checked).toBeGreaterThan(2000);
  });

  it('declares for each code the verdict its capability gives it', () => {
    const { subjects, reports } = drawBootstrap(3000, 78);
    const sources = calibrationSources();
    const seen = new Set<string>();
    subjects.forEach((subject, i) => {
      const reputation: Reputation = { reports: reports[i]! };
      const evidence = gatherEvidence(subject, sources, reputation);
      const scored = score({ evidence, version: SCORE_VERSIONS.at(-1)! });
      for (const c of scored.components) {
        if (c.verdict === 'unavailable') continue;
        const def = COMPONENT_ORDER.find((d) => d.key === c.component)!;
        const declaredFinding = findingOf(def, c.detail!, reports[i]!);
        expect({ verdict: c.verdict, detail: c.detail }).toEqual({
          verdict: declaredFinding.verdict,
          detail: c.detail,
        });
        seen.add(c.detail!);
      }
    });
    expect(seen.size).toBeGreaterThan(10);
  });
});
