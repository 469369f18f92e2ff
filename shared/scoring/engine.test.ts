import { describe, expect, it } from 'vitest';
import type { Context } from '../contract/request.ts';
import type { IpFacts } from '../resolution/ip.ts';
import {
  actionFor,
  bandFor,
  contextEffect,
  coverageOf,
  evaluate,
  ledgerBandCeiling,
  ledgerCeiling,
  LEDGER_TRUST_GATES,
  score,
  type ScoreVersion,
} from './engine.ts';
import { VERSION_DEFINITIONS } from './weights.ts';
import { identityVersion, IMPOSSIBLE, MOBILE } from './fixtures.ts';

const released = VERSION_DEFINITIONS.find((v) => v.id === '2026.11.0')!;
const def = { ...released, bandFloors: released.bandFloors! };
/** A calibration where raw risk r ranks at exactly r percent (for raws 0..100), to read results easily. */
const version: ScoreVersion = identityVersion(def.id);

const mobile = MOBILE;
const impossible = IMPOSSIBLE;
const ip = (over: Partial<IpFacts> = {}): IpFacts => ({
  address: '81.2.69.142',
  version: 4,
  bogon: false,
  range: 'unicast',
  hosting: false,
  vpn: false,
  proxy: false,
  tor: false,
  ...over,
});
const ctx = (geography: Context['geography'], extra: Partial<Context> = {}): Context => ({
  sector: 'bank',
  geography,
  collection_point: {},
  ...extra,
});

describe('bandFor', () => {
  it.each([
    [0, 'minimal'],
    [19, 'minimal'],
    [20, 'low'],
    [39, 'low'],
    [40, 'medium'],
    [59, 'medium'],
    [60, 'high'],
    [79, 'high'],
    [80, 'critical'],
    [100, 'critical'],
  ] as const)('balanced: %i is %s', (s, band) => expect(bandFor(s, def)).toBe(band));

  it('recall_weighted lowers and precision_weighted raises every floor by the version shift', () => {
    expect(bandFor(15, def, 'recall_weighted')).toBe('low');
    expect(bandFor(14, def, 'recall_weighted')).toBe('minimal');
    expect(bandFor(75, def, 'recall_weighted')).toBe('critical');
    expect(bandFor(84, def, 'precision_weighted')).toBe('high');
    expect(bandFor(85, def, 'precision_weighted')).toBe('critical');
    expect(bandFor(24, def, 'precision_weighted')).toBe('minimal');
  });
});

describe('actionFor', () => {
  it('follows band, stricter at payment, authentication and profile_change', () => {
    expect(actionFor('minimal', 'payment')).toBe('allow');
    expect(actionFor('low')).toBe('allow');
    expect(actionFor('low', 'authentication')).toBe('watch');
    expect(actionFor('medium', 'onboarding')).toBe('investigate');
    expect(actionFor('medium', 'profile_change')).toBe('step_up_auth');
    expect(actionFor('high', 'support')).toBe('investigate');
    expect(actionFor('high', 'payment')).toBe('challenge');
    expect(actionFor('critical')).toBe('block');
  });
});

describe('evaluate', () => {
  it('gives an impossible caller ID CLI_IMPOSSIBLE with the version points', () => {
    const { components, raw } = evaluate({ phone: impossible }, def.points);
    expect(components).toEqual([
      { component: 'caller_id_integrity', verdict: 'adverse', contribution: 45, detail: 'CLI_IMPOSSIBLE' },
      { component: 'ndc_range_risk', verdict: 'no_match', contribution: 0, detail: 'NDC_RANGE_UNKNOWN' },
    ]);
    expect(raw).toBe(45);
  });

  it('counts reputation reports up to the cap', () => {
    expect(evaluate({ reputation: { reports: 1 } }, def.points).components[0]).toMatchObject({
      verdict: 'elevated',
      contribution: 20,
    });
    expect(evaluate({ reputation: { reports: 9 } }, def.points).components[0]).toMatchObject({
      verdict: 'adverse',
      contribution: 60,
    });
    expect(evaluate({ reputation: 'unavailable' }, def.points).components[0]).toMatchObject({
      verdict: 'unavailable',
      contribution: 0,
    });
  });

  it('scores a code the version does not name as 0, keeping its verdict and detail', () => {
    const { CLI_IMPOSSIBLE: _unnamed, ...rest } = def.points;
    const { components, raw } = evaluate({ phone: impossible }, rest);
    expect(components[0]).toEqual({
      component: 'caller_id_integrity',
      verdict: 'adverse',
      contribution: 0,
      detail: 'CLI_IMPOSSIBLE',
    });
    expect(raw).toBe(0);
  });

  it('classifies networks: bogon, hosting, access, unknown', () => {
    const network = (f: IpFacts) => evaluate({ ip: f }, def.points).components[0]!.detail;
    expect(network(ip({ bogon: true }))).toBe('IP_BOGON');
    expect(network(ip({ hosting: true }))).toBe('IP_HOSTING');
    expect(network(ip({ as_type: 'isp' }))).toBe('IP_ACCESS_NETWORK');
    expect(network(ip())).toBe('IP_NETWORK_UNKNOWN');
  });
});

describe('coverageOf', () => {
  it('counts informative verdicts only', () => {
    const c = (verdict: 'clean' | 'neutral' | 'no_match') => ({ component: 'x', verdict, contribution: 0 });
    expect(coverageOf([c('clean'), c('clean'), c('clean'), c('neutral')])).toBe('strong');
    expect(coverageOf([c('clean'), c('neutral')])).toBe('partial');
    expect(coverageOf([c('no_match'), c('no_match'), c('clean')])).toBe('thin');
    expect(coverageOf([])).toBe('thin');
  });
});

describe('contextEffect', () => {
  it('elevates outside operating countries and corridors', () => {
    expect(contextEffect({ phone: mobile }, ctx({ operating_countries: ['GB'] })).effect).toBe(
      'band_elevated',
    );
    expect(contextEffect({ phone: mobile }, ctx({ expected_corridors: ['DE'] })).effect).toBe('none');
  });
  it('reduces in a diaspora corridor, unless another leg is outside every list', () => {
    expect(
      contextEffect({ phone: mobile }, ctx({ operating_countries: ['GB'], diaspora_corridors: ['DE'] }))
        .effect,
    ).toBe('band_reduced');
    const foreignIp = ip({ country_code: 'RU' });
    expect(
      contextEffect(
        { phone: mobile, ip: foreignIp },
        ctx({ operating_countries: ['GB'], diaspora_corridors: ['DE'] }),
      ).effect,
    ).toBe('band_elevated');
  });
  it('ignores countries of invalid numbers and bogons, and a context without geography lists', () => {
    expect(
      contextEffect({ ip: ip({ bogon: true, country_code: 'RU' }) }, ctx({ operating_countries: ['GB'] }))
        .effect,
    ).toBe('none');
    expect(contextEffect({ phone: mobile }, ctx({})).effect).toBe('none');
  });
});

describe('score', () => {
  it('is pure: the same input gives the same output', () => {
    const input = {
      evidence: { phone: mobile, ip: ip() },
      version,
      context: ctx({ operating_countries: ['GB'] }),
    };
    expect(score(input)).toEqual(score(input));
  });

  it('shifts the band one step for the context, and says so', () => {
    const out = score({
      evidence: { phone: mobile },
      version,
      context: ctx({ operating_countries: ['GB'] }),
      contextId: 'c1',
    });
    expect(out.score).toBe(0);
    expect(out.band).toBe('low');
    expect(out.context_applied).toMatchObject({ context_id: 'c1', effect: 'band_elevated' });
  });

  it('reports effect none when the band cannot move further', () => {
    const out = score({
      evidence: { phone: mobile },
      version,
      context: ctx({ operating_countries: ['DE'], diaspora_corridors: ['DE'] }),
    });
    expect(out.band).toBe('minimal');
    expect(out.context_applied!.effect).toBe('none');
  });

  it('names the largest contribution as the primary risk factor, and lists benign exclusions', () => {
    const out = score({
      evidence: { phone: mobile, ip: ip({ hosting: true, country_code: 'DE' }) },
      version,
      context: ctx({ operating_countries: ['DE'] }),
    });
    expect(out.primary_risk_factor?.code).toBe('IP_HOSTING');
    expect(out.benign_exclusions).toEqual(['MOBILE_IN_OPERATING_COUNTRY']);
    expect(out.score).toBe(20);
  });

  it('calls an access address not anonymised, never a hosting or VPS one', () => {
    const exclusions = (hosting: boolean) =>
      score({
        evidence: { ip: ip({ hosting, country_code: 'DE' }) },
        version,
        context: ctx({ operating_countries: ['DE'] }),
      }).benign_exclusions;
    expect(exclusions(false)).toEqual(['IP_NOT_ANONYMISED', 'ACCESS_IP_IN_EXPECTED_GEOGRAPHY']);
    expect(exclusions(true)).toEqual([]);
  });

  it('takes no reassurance from a Tor or VPN list past its maximum data age', () => {
    const scored = (stale: string[]) =>
      score({
        evidence: { ip: ip({ country_code: 'DE' }), stale: new Set(stale) },
        version,
        context: ctx({ operating_countries: ['DE'] }),
      });
    expect(scored([]).benign_exclusions).toEqual(['IP_NOT_ANONYMISED', 'ACCESS_IP_IN_EXPECTED_GEOGRAPHY']);
    for (const key of ['ip_tor_exit', 'ip_vpn_proxy']) {
      const out = scored([key]);
      expect(out.benign_exclusions, key).toEqual([]);
      expect(
        out.components.find((c) => c.component === key),
        key,
      ).toMatchObject({
        verdict: 'no_match',
        detail: 'IP_ANONYMISER_LIST_STALE',
        contribution: 0,
      });
      expect(
        out.components.filter((c) => c.verdict === 'clean').map((c) => c.component),
        key,
      ).not.toContain(key);
    }
  });

  it('still counts what a stale list names', () => {
    const out = score({ evidence: { ip: ip({ tor: true }), stale: new Set(['ip_tor_exit']) }, version });
    expect(out.components.find((c) => c.component === 'ip_tor_exit')).toMatchObject({
      verdict: 'adverse',
      detail: 'IP_TOR_EXIT',
      contribution: 35,
    });
  });

  it('names unavailable capabilities in degraded_sources', () => {
    const out = score({ evidence: { reputation: 'unavailable' }, version, degraded: ['ip_tor_exit'] });
    expect(out.degraded_sources.sort()).toEqual(['ip_tor_exit', 'reputation_ledger']);
  });
});

describe('the ledger trust ceiling', () => {
  // Ledger points steep enough that the percentile alone would put one report in `high`.
  const steep: ScoreVersion = { ...version, points: { ...version.points, REPUTATION_REPORTED: 70 } };
  const gated: ScoreVersion = { ...steep, gates: LEDGER_TRUST_GATES };
  const phoneWith = (reports: number, extra: Partial<IpFacts> | undefined = undefined) => ({
    phone: mobile,
    ...(extra ? { ip: ip(extra) } : {}),
    reputation: { reports, outcomeReports: reports },
  });

  it('one organisation makes a clean subject at most medium, two at most high, three critical', () => {
    for (const v of [steep, gated]) {
      expect(score({ evidence: phoneWith(1), version: v })).toMatchObject({ score: 70, band: 'medium' });
      expect(score({ evidence: phoneWith(2), version: v })).toMatchObject({ score: 100, band: 'high' });
      expect(score({ evidence: phoneWith(3), version: v })).toMatchObject({ score: 100, band: 'critical' });
    }
    expect(score({ evidence: phoneWith(1), version: steep }).components.at(-1)!.verdict).toBe('elevated');
    expect(score({ evidence: phoneWith(3), version: steep }).components.at(-1)!.verdict).toBe('adverse');
  });

  it('another adverse component lets two organisations reach critical', () => {
    expect(score({ evidence: phoneWith(2, { tor: true }), version: gated }).band).toBe('critical');
  });

  it('a context cannot lift a subject past the ceiling either', () => {
    const out = score({
      evidence: phoneWith(1),
      version: steep,
      context: ctx({ operating_countries: ['GB'] }),
    });
    expect(out.band).toBe('medium');
  });

  it('one organisation never lifts elevated other evidence to high', () => {
    // Hosting, VPN: `elevated` components that meet the `high` gate once the ledger's points
    // raise the score; alone they stay where they were.
    for (const extra of [{ hosting: true }, { vpn: true }]) {
      for (const v of [steep, gated]) {
        const alone = score({ evidence: { phone: mobile, ip: ip(extra) }, version: v });
        const one = score({ evidence: phoneWith(1, extra), version: v });
        const two = score({ evidence: phoneWith(2, extra), version: v });
        expect(one.score).toBeGreaterThan(alone.score);
        expect(one.band).toBe(alone.band === 'minimal' || alone.band === 'low' ? 'medium' : alone.band);
        expect(two.band).toBe('high');
      }
    }
  });

  it('the ceiling keeps what the other evidence gives on its own', () => {
    const comps = [
      { component: 'ip_tor_exit', verdict: 'adverse' as const },
      { component: 'reputation_ledger', verdict: 'elevated' as const },
    ];
    const elevated = [{ component: 'ip_vpn_proxy', verdict: 'elevated' as const }, comps[1]!];
    // One organisation: at most the higher of the band without the ledger and medium.
    expect(ledgerBandCeiling('high', 'low', 1, elevated)).toBe('medium');
    expect(ledgerBandCeiling('critical', 'minimal', 1, elevated)).toBe('medium');
    expect(ledgerBandCeiling('critical', 'high', 1, comps)).toBe('high');
    expect(ledgerBandCeiling('low', 'minimal', 1, elevated)).toBe('low');
    // Two: high, and critical only with another adverse component.
    expect(ledgerBandCeiling('critical', 'low', 2, elevated)).toBe('high');
    expect(ledgerBandCeiling('critical', 'low', 2, comps)).toBe('critical');
    // Three: no ceiling.
    expect(ledgerBandCeiling('critical', 'minimal', 3, elevated)).toBe('critical');
  });

  it('the ceiling follows the count', () => {
    expect([1, 2, 3, 7].map(ledgerCeiling)).toEqual(['medium', 'high', 'critical', 'critical']);
  });
});
