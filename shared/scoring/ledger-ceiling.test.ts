/**
 * The ledger's ceiling counts organisations, never reports (docs/security.md "Ledger trust"): the
 * seed or consortium feed is evidence of its own and never stands in for a second organisation.
 * Checked over feed reports, reporting organisations, the other evidence, tiers, every released
 * score version, postures and contexts, through the engine's `score` as the API calls it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Context } from '../contract/request.ts';
import type { IpFacts } from '../resolution/ip.ts';
import type { Band, Tier } from '../vocabulary/score-terms.ts';
import { score, type ScoreVersion } from './engine.ts';
import type { RiskPosture } from '../vocabulary/scoring-input.ts';
import type { Evidence, Reputation } from '../capabilities/evidence.ts';
import { IMPOSSIBLE, MOBILE } from './fixtures.ts';
import { replay, type ReplaySignature } from './replay.ts';
import { tierEvidence } from './tier-evidence.ts';
import { includedIn } from './tiers.ts';
import { SCORE_VERSIONS } from './versions.ts';

const BAND_ORDER: readonly Band[] = ['minimal', 'low', 'medium', 'high', 'critical'];
const rank = (b: Band) => BAND_ORDER.indexOf(b);
const higher = (a: Band, b: Band): Band => (rank(a) >= rank(b) ? a : b);

const mobile = MOBILE;
const impossible = IMPOSSIBLE;
const ip = (over: Partial<IpFacts> = {}): IpFacts => ({
  address: '81.2.69.142',
  version: 4,
  bogon: false,
  range: 'unicast',
  as_type: 'isp',
  country_code: 'GB',
  hosting: false,
  vpn: false,
  proxy: false,
  tor: false,
  ...over,
});

/** The other evidence: none, elevated (hosting, VPN, an elevated range) or adverse (Tor, impossible number, bogon). */
const OTHER: Record<string, Evidence> = {
  'clean mobile': { phone: mobile },
  'clean mobile and address': { phone: mobile, ip: ip() },
  NDC_RANGE_ELEVATED: { phone: mobile, ndcListed: 'elevated' },
  IP_HOSTING: { phone: mobile, ip: ip({ hosting: true, as_type: 'hosting' }) },
  IP_VPN_PROXY: { ip: ip({ vpn: true }) },
  'IP_HOSTING and IP_VPN_PROXY': { ip: ip({ hosting: true, as_type: 'hosting', vpn: true }) },
  'NDC_RANGE_ELEVATED and IP_VPN_PROXY': { phone: mobile, ndcListed: 'elevated', ip: ip({ vpn: true }) },
  IP_TOR_EXIT: { phone: mobile, ip: ip({ tor: true }) },
  CLI_IMPOSSIBLE: { phone: impossible },
  'CLI_IMPOSSIBLE and IP_HOSTING': { phone: impossible, ip: ip({ hosting: true, as_type: 'hosting' }) },
  IP_BOGON: { ip: ip({ address: '10.1.2.3', bogon: true, range: 'private', as_type: undefined }) },
};

/** Contexts whose geography gives each effect for these subjects (DE number, GB address). */
const GEOGRAPHIES: Context['geography'][] = [
  { operating_countries: ['DE', 'GB'] },
  { operating_countries: ['FR'] },
  { diaspora_corridors: ['DE', 'GB'] },
];
const POSTURES: (RiskPosture | undefined)[] = [
  undefined,
  'balanced',
  'recall_weighted',
  'precision_weighted',
];
const TIERS: readonly Tier[] = ['verify', 'assess', 'bureau'];

interface Case {
  version: ScoreVersion;
  feed: number;
  organisations: number;
  other: string;
  tier: Tier;
  posture: RiskPosture | undefined;
  geography: Context['geography'] | undefined;
}

const contextOf = (c: Case): Context | undefined =>
  c.geography === undefined && c.posture === undefined
    ? undefined
    : {
        sector: 'bank',
        geography: c.geography ?? {},
        collection_point: {},
        ...(c.posture ? { risk_posture: c.posture } : {}),
      };

/** What the ledger lookup answers for the caller: the feed's reports and the organisations' votes. */
const reputationOf = (feed: number, organisations: number): Reputation => ({
  reports: feed + organisations,
  outcomeReports: organisations,
  ownReport: false,
});

/** The case scored as the API scores it: the ledger only where the tier consults it. */
function scoreCase(c: Case, feed = c.feed, organisations = c.organisations) {
  const consults = includedIn(c.tier).has('reputation_ledger');
  const evidence: Evidence = {
    ...OTHER[c.other]!,
    ...(consults ? { reputation: reputationOf(feed, organisations) } : {}),
  };
  return score({ evidence, version: c.version, context: contextOf(c) });
}

/** The band with no ledger at all. */
function withoutLedger(c: Case): Band {
  return score({ evidence: OTHER[c.other]!, version: c.version, context: contextOf(c) }).band;
}

const otherAdverse = (scored: ReturnType<typeof score>) =>
  scored.components.some((x) => x.component !== 'reputation_ledger' && x.verdict === 'adverse');

const cases = fc.record({
  version: fc.constantFrom(...SCORE_VERSIONS),
  feed: fc.integer({ min: 0, max: 3 }),
  organisations: fc.integer({ min: 0, max: 4 }),
  other: fc.constantFrom(...Object.keys(OTHER)),
  tier: fc.constantFrom(...TIERS),
  posture: fc.constantFrom(...POSTURES),
  geography: fc.constantFrom(undefined, ...GEOGRAPHIES),
});
const RUNS = { numRuns: 4000, seed: 20261212 };

describe('the ledger ceiling counts organisations, never feed reports', () => {
  it('one organisation: never above the higher of the band without it and medium', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const scored = scoreCase({ ...c, organisations: 1 });
        // Without the organisation: the band the feed's entry gives, as for a feed-only subject.
        const kept = scoreCase({ ...c, organisations: 0 }).band;
        expect(rank(scored.band)).toBeLessThanOrEqual(rank(higher(kept, 'medium')));
        // A feed entry of one report is within the one-organisation ceiling on its own, so with it
        // one organisation never lifts a subject above the band without the ledger and medium.
        if (c.feed <= 1)
          expect(rank(scored.band)).toBeLessThanOrEqual(rank(higher(withoutLedger(c), 'medium')));
      }),
      RUNS,
    );
  });

  it('two organisations: never critical unless another component is adverse (or the feed alone says so)', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const scored = scoreCase({ ...c, organisations: 2 });
        const kept = scoreCase({ ...c, organisations: 0 }).band;
        // A tier without the ledger gets the band of its other evidence, whatever the version gives it.
        if (includedIn(c.tier).has('reputation_ledger') && !otherAdverse(scored)) {
          expect(rank(scored.band)).toBeLessThanOrEqual(rank(higher(kept, 'high')));
          // Below three feed reports the feed alone is never adverse: two organisations stop at high.
          if (c.feed < 3) expect(scored.band).not.toBe('critical');
        }
      }),
      RUNS,
    );
  });

  it("an organisation's report never lowers another caller's band, and the score keeps its points", () => {
    fc.assert(
      fc.property(cases, (c) => {
        const organisations = Math.max(1, c.organisations);
        // Versions without gates of their own take the ledger's trust gates once the ledger
        // reports the subject at all, which may lower an ungated band: compared from there on.
        if (!c.version.gates && c.feed + organisations - 1 === 0) return;
        const before = scoreCase({ ...c, organisations: organisations - 1 });
        const after = scoreCase({ ...c, organisations });
        expect(rank(after.band)).toBeGreaterThanOrEqual(rank(before.band));
        expect(after.score).toBeGreaterThanOrEqual(before.score);
      }),
      RUNS,
    );
  });

  it('a feed-only subject gets what it got before organisations were told apart', () => {
    fc.assert(
      fc.property(cases, (c) => {
        // `{ reports }` alone is how the feed's count was read before: every report counted.
        const consults = includedIn(c.tier).has('reputation_ledger');
        const evidence: Evidence = {
          ...OTHER[c.other]!,
          ...(consults ? { reputation: { reports: c.feed } } : {}),
        };
        const before = score({ evidence, version: c.version, context: contextOf(c) });
        const now = scoreCase({ ...c, organisations: 0 });
        expect({ score: now.score, band: now.band }).toEqual({ score: before.score, band: before.band });
      }),
      RUNS,
    );
  });

  it('a retained score replays to the same band from its feed and organisation counts', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const bureau = { ...c, tier: 'bureau' as const };
        const scored = scoreCase(bureau);
        const context = contextOf(bureau);
        const sig: ReplaySignature = {
          components: tierEvidence(scored, 'bureau').components,
          fired: scored.fired,
          reports: c.feed + c.organisations,
          organisations: c.organisations,
          context: context !== undefined,
          ...(context?.risk_posture ? { posture: context.risk_posture } : {}),
          ...(scored.context_effect ? { effect: scored.context_effect } : {}),
        };
        const r = replay(sig, c.version);
        expect({ raw: r.raw, score: r.score, band: r.band }).toEqual({
          raw: scored.raw,
          score: scored.score,
          band: scored.band,
        });
      }),
      RUNS,
    );
  });

  it('the observed case: a feed entry of one and one organisation is never critical for another caller', () => {
    let checked = 0;
    for (const version of SCORE_VERSIONS)
      for (const other of Object.keys(OTHER))
        for (const posture of POSTURES)
          for (const geography of [undefined, ...GEOGRAPHIES]) {
            const c: Case = { version, feed: 1, organisations: 1, other, tier: 'bureau', posture, geography };
            if (withoutLedger(c) === 'critical') continue;
            const scored = scoreCase(c);
            expect(scored.band, `${version.id} ${other} ${posture} ${JSON.stringify(geography)}`).not.toBe(
              'critical',
            );
            expect(scored.recommended_action).not.toBe('block');
            checked++;
          }
    expect(checked).toBeGreaterThan(500);
  });
});
