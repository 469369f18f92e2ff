import { describe, expect, it } from 'vitest';
import type { Context } from '../../contract/request.ts';
import type { IpFacts } from '../../resolution/ip.ts';
import { score, type ScoreVersion } from '../../scoring/engine.ts';
import { replay } from '../../scoring/replay.ts';
import { identityVersion, IMPOSSIBLE, MOBILE } from '../../scoring/fixtures.ts';
import type { Evidence } from '../evidence.ts';
import { applyListMatch, orgLists, type OrgListsData } from './index.ts';

/** Raw risk r ranks at r percent, so bands read off the points (2026.11.0: 20/40/60/80). */
const version = identityVersion();

const mobile = MOBILE;
const impossible = IMPOSSIBLE;
const ip = (over: Partial<IpFacts> = {}): IpFacts => ({
  address: '81.2.69.142',
  version: 4,
  bogon: false,
  range: 'unicast',
  asn: 'AS20712',
  country_code: 'GB',
  hosting: false,
  vpn: false,
  proxy: false,
  tor: false,
  ...over,
});
/** An impossible number from a Tor exit: 45 + 35 points, `critical`. */
const risky: Evidence = { phone: impossible, ip: ip({ tor: true }) };
/** A German mobile number from a British ISP address: no points, `minimal`. */
const quiet: Evidence = { phone: mobile, ip: ip() };
const listed = (evidence: Evidence, data: OrgListsData): Evidence => ({
  ...evidence,
  data: { ...evidence.data, [orgLists.key]: data },
});
const allow = (kind: 'phone' | 'cidr' = 'phone'): OrgListsData => ({
  match: { effect: 'allow', kind },
  degraded: false,
});
const deny = (kind: 'ip' | 'asn' = 'ip'): OrgListsData => ({
  match: { effect: 'deny', kind },
  degraded: false,
});

describe('applyListMatch', () => {
  it.each([
    ['minimal', 'minimal', 'high'],
    ['low', 'low', 'high'],
    ['medium', 'low', 'high'],
    ['high', 'low', 'high'],
    ['critical', 'low', 'critical'],
  ] as const)('%s: allow gives %s, deny %s', (band, allowed, denied) => {
    expect(applyListMatch(band, 'allow')).toBe(allowed);
    expect(applyListMatch(band, 'deny')).toBe(denied);
    expect(applyListMatch(band, undefined)).toBe(band);
  });
});

describe('an organisation list entry in a score', () => {
  it('allow caps the band at low, the action follows it, the score and points stay', () => {
    const before = score({ evidence: risky, version });
    const after = score({ evidence: listed(risky, allow()), version });
    expect(before).toMatchObject({ band: 'critical', recommended_action: 'block' });
    expect(after).toMatchObject({
      band: 'low',
      recommended_action: 'allow',
      score: before.score,
      raw: before.raw,
      fired: before.fired,
      coverage: before.coverage,
      context_applied: { effect: 'band_reduced', reason: 'organisation allow list: phone entry' },
    });
    expect(after.components.at(-1)).toEqual({
      component: orgLists.key,
      verdict: 'neutral',
      contribution: 0,
      detail: 'ORG_LIST_ALLOW',
    });
  });

  it('deny lifts the band to at least high, whatever the gates, and no further', () => {
    const gated = {
      ...version,
      gates: { critical: ['adverse'], high: ['elevated', 'adverse'] },
    } as ScoreVersion;
    for (const v of [version, gated]) {
      const out = score({ evidence: listed(quiet, deny('asn')), version: v });
      expect(out).toMatchObject({
        band: 'high',
        recommended_action: 'investigate',
        score: score({ evidence: quiet, version: v }).score,
        context_applied: { effect: 'band_elevated', reason: 'organisation deny list: asn entry' },
      });
      expect(out.fired).toEqual([]);
    }
    expect(score({ evidence: listed(risky, deny()), version }).band).toBe('critical');
    const strict = ctx({}, { collection_point: { moment: 'payment' } });
    expect(score({ evidence: listed(quiet, deny()), version, context: strict }).recommended_action).toBe(
      'challenge',
    );
  });

  it("takes precedence over the context's geography, keeping the context's id", () => {
    const abroad = ctx({ operating_countries: ['FR'] });
    const geo = score({ evidence: risky, version, context: abroad, contextId: 'ctx_1' });
    expect(geo.context_applied?.reason).toMatch(/outside the operating countries/);
    const out = score({
      evidence: listed(risky, allow('cidr')),
      version,
      context: abroad,
      contextId: 'ctx_1',
    });
    expect(out).toMatchObject({
      band: 'low',
      context_applied: {
        context_id: 'ctx_1',
        effect: 'band_reduced',
        reason: 'organisation allow list: cidr entry',
      },
      // The audit record's geography effect before gates is the context's, as before.
      context_effect: 'band_elevated',
    });
  });

  it('without lists, or with no entry naming the subject, the score is exactly as before', () => {
    const none = score({ evidence: risky, version });
    expect(none.components.map((c) => c.component)).not.toContain(orgLists.key);
    expect(score({ evidence: listed(risky, { degraded: false }), version })).toEqual(none);
  });

  it('names org_lists in degraded_sources when the node could not load them', () => {
    const out = score({ evidence: listed(quiet, { degraded: true }), version });
    expect(out.components.at(-1)).toMatchObject({ verdict: 'unavailable', detail: 'SOURCE_UNAVAILABLE' });
    expect(out.degraded_sources).toContain(orgLists.key);
    expect(out.band).toBe('minimal');
  });

  it('replays from the stored code: the band effect comes back under any version', () => {
    for (const data of [allow(), deny(), { degraded: false }]) {
      for (const evidence of [risky, quiet]) {
        const out = score({ evidence: listed(evidence, data), version });
        const r = replay(
          { components: out.components, fired: out.fired, reports: 0, context: false },
          version,
        );
        expect({ raw: r.raw, score: r.score, band: r.band, action: r.action }).toEqual({
          raw: out.raw,
          score: out.score,
          band: out.band,
          action: out.recommended_action,
        });
      }
    }
  });
});

function ctx(geography: Context['geography'], extra: Partial<Context> = {}): Context {
  return { sector: 'bank', geography, collection_point: {}, ...extra };
}
