import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../shared/contract/errors.ts';
import { HealthResponse, ProbeResponse, ScoreResponse } from '../../shared/contract/response.ts';
import { ACTIONS, BANDS, COVERAGES, VERDICTS } from '../../shared/vocabulary/score-terms.ts';
import { BENIGN_EXCLUSIONS } from '../../shared/vocabulary/benign-exclusions.ts';
import { bandFor } from '../../shared/scoring/engine.ts';
import { percentileRank } from '../../shared/scoring/percentile.ts';
import { COMPONENT_KEYS, REASON_CODES } from '../../shared/scoring/reason-codes.ts';
import { DEFAULT_VERSION, findVersion } from '../../shared/scoring/versions.ts';
import { pointsOf } from '../../shared/scoring/weights.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { CAPABILITIES } from '../../shared/capabilities/registry.ts';
import { freshAddress, freshMobile, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/processes.ts';
import { startHarness, type Harness } from './harness.ts';

/** docs/contract.md "What a score is", "Tiers", "Scoring semantics" and "Versioning". */
describe('POST /v1/score responses against the running API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const VALID_MOBILE = '+447911123456';
  /** A possible length (10 national digits) in a range the UK plan does not assign (04...). */
  const IMPOSSIBLE = '+444012345678';
  const TRUNK_ZERO = '+4407911123456';
  const DE_MOBILE = '+4915712345678';
  const DE_SHARED_COST = '+4918012345678';
  const BOTH = { phone_number: VALID_MOBILE, ip_address: '81.2.69.142' };

  async function scored(tier: keyof Harness['callers'], body: unknown) {
    const res = await h.callers[tier].score(body);
    const json = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    return ScoreResponse.parse(json);
  }
  const component = (r: ScoreResponse, key: string) => r.components?.find((c) => c.component === key);

  describe('table 2.2 fields in every tier', () => {
    it.each(['verify', 'assess', 'bureau'] as const)('%s', async (tier) => {
      const r = await scored(tier, { subject: BOTH, client_reference: 'ref-1' });
      expect(r.score_id).toMatch(/^sc_[0-9a-f]{32}$/);
      expect(r.tier).toBe(tier);
      expect(r.score_version).toBe(DEFAULT_VERSION.id);
      expect(Number.isInteger(r.score) && r.score >= 0 && r.score <= 100).toBe(true);
      expect(r.score_type).toBe('ranking');
      expect(r.score_basis).toBe(
        `riskier than ${r.score} % of subjects in the reference population of ${DEFAULT_VERSION.id}`,
      );
      expect(BANDS).toContain(r.band);
      expect(ACTIONS).toContain(r.recommended_action);
      expect(COVERAGES).toContain(r.coverage);
      expect(r.client_reference).toBe('ref-1');
      expect(r.disclosure).toMatch(/ranking/);
      expect(r.disclosure).toMatch(/not a probability/);
      expect(r.degraded_sources).toEqual([]);
      expect(Number.isInteger(r.latency_ms)).toBe(true);
      for (const c of r.components!) {
        expect(Object.keys(COMPONENT_KEYS)).toContain(c.component);
        expect(VERDICTS).toContain(c.verdict);
        expect(Number.isInteger(c.contribution)).toBe(true);
        expect(Object.keys(REASON_CODES)).toContain(c.detail);
      }
      for (const b of r.benign_exclusions ?? []) expect(Object.keys(BENIGN_EXCLUSIONS)).toContain(b);
    });
  });

  describe('tiers: inclusion and suppressed', () => {
    it('verify sees its components only and is told what assess and bureau add', async () => {
      const r = await scored('verify', { subject: BOTH });
      expect(r.components!.map((c) => c.component).sort()).toEqual([
        'caller_id_integrity',
        'ip_network_type',
      ]);
      expect(r.subject).toBeUndefined();
      expect(r.primary_risk_factor).toBeUndefined();
      expect(r.benign_exclusions).toBeUndefined();
      expect(r.cluster_id).toBeUndefined();
      expect(r.suppressed).toEqual([
        { component: 'ndc_range_risk', available_in: 'assess' },
        { component: 'ip_tor_exit', available_in: 'assess' },
        { component: 'ip_vpn_proxy', available_in: 'assess' },
        { component: 'phone_live_lookup', available_in: 'assess' },
        { component: 'subject', available_in: 'assess' },
        { component: 'primary_risk_factor', available_in: 'assess' },
        { component: 'benign_exclusions', available_in: 'assess' },
        { component: 'context_applied', available_in: 'assess' },
        { component: 'reputation_ledger', available_in: 'bureau' },
        { component: 'network_velocity', available_in: 'bureau' },
        { component: 'cluster_id', available_in: 'bureau' },
        { component: 'shadow', available_in: 'bureau' },
      ]);
    });

    it('assess adds range, anonymiser components and subject resolution', async () => {
      const r = await scored('assess', { subject: BOTH });
      expect(r.components!.map((c) => c.component).sort()).toEqual(
        ['caller_id_integrity', 'ip_network_type', 'ip_tor_exit', 'ip_vpn_proxy', 'ndc_range_risk'].sort(),
      );
      expect(r.subject!.phone_number).toMatchObject({ e164: VALID_MOBILE, valid: true, allocated: true });
      expect(r.subject!.ip_address).toMatchObject({ bogon: false });
      expect(r.cluster_id).toBeUndefined();
      expect(r.suppressed.map((s) => s.component)).toEqual([
        'reputation_ledger',
        'network_velocity',
        'cluster_id',
        'shadow',
      ]);
    });

    it('bureau adds the reputation ledger and cluster_id, and suppresses nothing', async () => {
      // A subject nobody reported: other tests report outcomes on BOTH, which the ledger keeps.
      const fresh = { phone_number: freshMobile(), ip_address: freshAddress() };
      const r = await scored('bureau', { subject: fresh });
      expect(component(r, 'reputation_ledger')).toMatchObject({
        verdict: 'no_match',
        contribution: 0,
        detail: 'REPUTATION_NO_REPORTS',
      });
      expect(r.cluster_id).toMatch(/^cl_[0-9a-f]{16}$/);
      expect(r.suppressed).toEqual([]);
    });

    it('403 E_ENTITLEMENT_REQUIRED for shadow_version below bureau, before the version is looked up', async () => {
      for (const tier of ['verify', 'assess'] as const) {
        for (const v of ['2026.08.0', '2026.02.0', '1999.01.0']) {
          const res = await h.callers[tier].score({ subject: BOTH, options: { shadow_version: v } });
          expect(res.status).toBe(403);
          expect(ErrorBody.parse(await res.json()).errors).toEqual([
            expect.objectContaining({ code: 'E_ENTITLEMENT_REQUIRED', field: 'options.shadow_version' }),
          ]);
        }
      }
    });

    it('an organisation granted a higher-tier item sees it, and it leaves suppressed', async () => {
      const { orgId, apiKey } = await orgWithKey('assess', { rateRps: 1_000, credits: 1_000 });
      const r = redis();
      await new OrgStore(r).updateOrg(orgId, { entitlements: ['reputation_ledger', 'shadow'] });
      r.disconnect();
      const body = await waitFor('the entitlement on the API node', async () => {
        const res = await scoreCall(h.api.url, apiKey, {
          subject: BOTH,
          options: { shadow_version: '2026.08.0' },
        });
        return res.status === 200 ? ScoreResponse.parse(await res.json()) : undefined;
      });
      expect(body.tier).toBe('assess');
      expect(component(body, 'reputation_ledger')).toBeDefined();
      expect(body.shadow?.score_version).toBe('2026.08.0');
      expect(body.suppressed.map((s) => s.component)).toEqual(['network_velocity', 'cluster_id']);
      expect(body.cluster_id).toBeUndefined();
    });
  });

  describe('evidence', () => {
    it('the same request twice gives the same score and components; only score_id and latency_ms differ', async () => {
      const body = {
        subject: BOTH,
        context: { sector: 'bank', geography: { operating_countries: ['GB'] }, collection_point: {} },
      };
      const a = await scored('bureau', body);
      const b = await scored('bureau', body);
      expect(a.score_id).not.toBe(b.score_id);
      const { score_id: _a, latency_ms: _al, ...restA } = a;
      const { score_id: _b, latency_ms: _bl, ...restB } = b;
      expect(restA).toEqual(restB);
    });

    it('a caller ID in an unassigned range of a possible length gets CLI_IMPOSSIBLE', async () => {
      const r = await scored('assess', { subject: { phone_number: IMPOSSIBLE } });
      expect(component(r, 'caller_id_integrity')).toMatchObject({
        verdict: 'adverse',
        detail: 'CLI_IMPOSSIBLE',
      });
      expect(component(r, 'caller_id_integrity')!.contribution).toBeGreaterThan(0);
      expect(r.primary_risk_factor).toEqual({
        code: 'CLI_IMPOSSIBLE',
        narrative: REASON_CODES.CLI_IMPOSSIBLE,
      });
      expect(r.subject!.phone_number).toMatchObject({ valid: false, allocated: false });
    });

    it('a shared-cost range gets NDC_RANGE_ELEVATED', async () => {
      const r = await scored('assess', { subject: { phone_number: DE_SHARED_COST } });
      expect(component(r, 'ndc_range_risk')).toMatchObject({
        verdict: 'elevated',
        detail: 'NDC_RANGE_ELEVATED',
      });
      expect(r.subject!.phone_number).toMatchObject({
        country_code: 'DE',
        line_type: 'shared_cost',
        ndc: '180',
      });
    });

    it('a documentation-range IP (192.0.2.1) resolves as bogon', async () => {
      const r = await scored('assess', { subject: { ip_address: '192.0.2.1' } });
      expect(r.subject!.ip_address!.bogon).toBe(true);
      expect(component(r, 'ip_network_type')).toMatchObject({ verdict: 'adverse', detail: 'IP_BOGON' });
      expect(r.primary_risk_factor!.code).toBe('IP_BOGON');
    });

    it('no primary_risk_factor when nothing contributes', async () => {
      const r = await scored('assess', { subject: { phone_number: VALID_MOBILE } });
      expect(r.components!.every((c) => c.contribution === 0)).toBe(true);
      expect(r.primary_risk_factor).toBeUndefined();
      expect(r.score).toBe(0);
      expect(r.band).toBe('minimal');
      expect(r.recommended_action).toBe('allow');
    });

    it('coverage reports evidence density: strong, partial, thin', async () => {
      expect((await scored('assess', { subject: { phone_number: VALID_MOBILE } })).coverage).toBe('strong');
      expect((await scored('assess', { subject: { ip_address: '81.2.69.142' } })).coverage).toBe('partial');
      expect((await scored('assess', { subject: { phone_number: TRUNK_ZERO } })).coverage).toBe('thin');
    });

    it('cluster_id is stable for the same infrastructure and differs across it', async () => {
      const a = await scored('bureau', { subject: { ip_address: '81.2.69.142' } });
      const b = await scored('bureau', { subject: { ip_address: '81.2.69.7' } });
      const c = await scored('bureau', { subject: { ip_address: '8.8.8.8' } });
      expect(a.cluster_id).toBe(b.cluster_id);
      expect(a.cluster_id).not.toBe(c.cluster_id);
    });
  });

  describe('ranking, not probability', () => {
    it('score is the percentile rank of the raw risk in the version calibration table', async () => {
      for (const subject of [
        BOTH,
        { phone_number: IMPOSSIBLE },
        { phone_number: TRUNK_ZERO },
        { ip_address: '192.0.2.1' },
      ]) {
        const r = await scored('bureau', { subject });
        const raw = r.components!.reduce((s, c) => s + c.contribution, 0);
        expect(r.score).toBe(percentileRank(raw, DEFAULT_VERSION.calibration));
      }
    });

    it('shadow_version scores again under a live version (bureau)', async () => {
      const r = await scored('bureau', {
        subject: { ip_address: '192.0.2.1' },
        options: { shadow_version: '2026.08.0' },
      });
      const v = findVersion('2026.08.0')!;
      expect(r.shadow).toEqual({
        score_version: '2026.08.0',
        score: percentileRank(
          pointsOf(v.points, 'IP_BOGON') + pointsOf(v.points, 'IP_NOT_ANONYMISED') * 2,
          v.calibration,
        ),
        band: bandFor(r.shadow!.score, v),
      });
      expect(r.score_version).toBe(DEFAULT_VERSION.id);
      expect((await scored('bureau', { subject: BOTH })).shadow).toBeUndefined();
    });

    it('409 E_SCORE_VERSION_RETIRED for a retired version, 422 for an unknown one', async () => {
      const retired = await h.callers.bureau.score({
        subject: BOTH,
        options: { shadow_version: '2026.02.0' },
      });
      expect(retired.status).toBe(409);
      expect(ErrorBody.parse(await retired.json()).errors).toEqual([
        expect.objectContaining({ code: 'E_SCORE_VERSION_RETIRED', field: 'options.shadow_version' }),
      ]);
      const unknown = await h.callers.bureau.score({
        subject: BOTH,
        options: { shadow_version: '1999.01.0' },
      });
      expect(unknown.status).toBe(422);
      expect(ErrorBody.parse(await unknown.json()).errors).toEqual([
        expect.objectContaining({ code: 'E_UNKNOWN_SCORE_VERSION', field: 'options.shadow_version' }),
      ]);
    });
  });

  describe('bands, posture, moment and context', () => {
    const ctx = (extra: object) => ({ sector: 'bank', geography: {}, collection_point: {}, ...extra });

    it('risk_posture shifts the band thresholds, never the score', async () => {
      // Under 2026.12.2 (floors 1 / 94 / 96 / 99, shift 1) a bogon (adverse evidence) scores 98:
      // below balanced's critical floor, at recall_weighted's (98). A premium-rate number
      // (elevated) scores 96: at balanced's high floor, below precision_weighted's (97).
      const at = async (subject: object, risk_posture: string) =>
        scored('assess', { subject, context: ctx({ risk_posture }) });
      const bogon = { ip_address: '192.0.2.1' };
      const premium = { phone_number: '+449012345678' };
      const bands = async (subject: object) => {
        const rs = await Promise.all(
          ['recall_weighted', 'balanced', 'precision_weighted'].map((p) => at(subject, p)),
        );
        expect(new Set(rs.map((r) => r.score)).size).toBe(1);
        return { score: rs[0]!.score, bands: rs.map((r) => r.band) };
      };
      expect(await bands(bogon)).toEqual({ score: 98, bands: ['critical', 'high', 'high'] });
      expect(await bands(premium)).toEqual({ score: 96, bands: ['high', 'high', 'medium'] });
    });

    it('recommended_action follows band and collection_point.moment', async () => {
      const act = async (phone: string, moment?: string, ip_address?: string) =>
        (
          await scored('assess', {
            subject: { phone_number: phone, ...(ip_address ? { ip_address } : {}) },
            context: ctx({ collection_point: moment ? { moment } : {} }),
          })
        ).recommended_action;
      const PREMIUM = '+449012345678';
      const HOSTING = '2.24.0.1';
      expect(await act(PREMIUM)).toBe('investigate');
      expect(await act(PREMIUM, 'payment')).toBe('challenge');
      expect(await act(PREMIUM, 'support')).toBe('investigate');
      expect(await act(IMPOSSIBLE, 'onboarding', '192.0.2.1')).toBe('block');
      expect(await act(VALID_MOBILE, 'payment')).toBe('allow');
      // A hosting network alone is low: allowed, watched at a strict moment.
      expect(await act(VALID_MOBILE, undefined, HOSTING)).toBe('allow');
      expect(await act(VALID_MOBILE, 'payment', HOSTING)).toBe('watch');
      // Missing evidence adds no risk: a trunk-zero number is unattested, not risky.
      expect(await act(TRUNK_ZERO, 'payment')).toBe('allow');
    });

    it('a subject outside operating countries and corridors raises the band one step', async () => {
      const r = await scored('assess', {
        subject: { phone_number: DE_MOBILE },
        context: ctx({ geography: { operating_countries: ['GB'], expected_corridors: ['FR'] } }),
      });
      expect(r.score).toBe(0);
      expect(r.band).toBe('low');
      expect(r.context_applied).toEqual({ effect: 'band_elevated', reason: expect.stringMatching(/DE/) });
    });

    it('a subject in a diaspora corridor lowers the band one step', async () => {
      const r = await scored('assess', {
        subject: { phone_number: DE_SHARED_COST },
        context: ctx({ geography: { operating_countries: ['GB'], diaspora_corridors: ['DE'] } }),
      });
      expect(r.band).toBe('medium');
      expect(r.context_applied!.effect).toBe('band_reduced');
      expect(r.benign_exclusions).toContain('SUBJECT_IN_DIASPORA_CORRIDOR');
    });

    it('a subject in an operating country: no effect, and a benign exclusion says why', async () => {
      const r = await scored('assess', {
        subject: { phone_number: VALID_MOBILE, ip_address: '81.2.69.142' },
        context: ctx({ geography: { operating_countries: ['GB', 'GG'] } }),
      });
      expect(r.context_applied!.effect).toBe('none');
      expect(r.benign_exclusions).toEqual(
        expect.arrayContaining(['MOBILE_IN_OPERATING_COUNTRY', 'IP_NOT_ANONYMISED']),
      );
    });

    it('verify gets the context-shifted band but not context_applied', async () => {
      const r = await scored('verify', {
        subject: { phone_number: DE_MOBILE },
        context: ctx({ geography: { operating_countries: ['GB'] } }),
      });
      expect(r.band).toBe('low');
      expect(r.context_applied).toBeUndefined();
    });
  });

  it('options.explain false drops the evidence layer and keeps the rest', async () => {
    const full = await scored('bureau', { subject: BOTH });
    const lean = await scored('bureau', { subject: BOTH, options: { explain: false } });
    for (const k of ['components', 'primary_risk_factor', 'benign_exclusions', 'subject'] as const) {
      expect(lean[k]).toBeUndefined();
    }
    expect(lean.score).toBe(full.score);
    expect(lean.band).toBe(full.band);
    expect(lean.cluster_id).toBe(full.cluster_id);
    expect(lean.suppressed).toEqual(full.suppressed);
  });

  it('/v1/health is public and keys capabilities by component key; probes answer', async () => {
    const res = await fetch(`${h.api.url}/v1/health`);
    expect(res.status).toBe(200);
    const body = HealthResponse.parse(await res.json());
    // Every capability the nodes load or look up behind a breaker: all component keys but the live
    // phone lookup, asked per request with nothing to refresh (registry.ts askedPerRequest).
    expect(Object.keys(body.capabilities).sort()).toEqual(CAPABILITIES.map((c) => c.name).sort());
    expect(body.score_versions.map(({ id, status, default: d }) => ({ id, status, default: d }))).toEqual([
      { id: '2026.02.0', status: 'retired', default: false },
      { id: '2026.08.0', status: 'live', default: false },
      { id: '2026.11.0', status: 'live', default: false },
      { id: '2026.12.0', status: 'live', default: false },
      { id: '2026.12.1', status: 'candidate', default: false },
      { id: '2026.12.2', status: 'live', default: false },
      { id: '2026.12.3', status: 'live', default: true },
      { id: '2026.12.4', status: 'candidate', default: false },
    ]);
    // Each version publishes its measured band rates; the default uses every band and meets the caps.
    const rates = body.score_versions.find((v) => v.default)!.band_rates;
    for (const band of BANDS) expect(rates[band], band).toBeGreaterThan(0);
    expect(rates.critical!).toBeLessThanOrEqual(0.01);
    expect(rates.critical! + rates.high!).toBeLessThanOrEqual(0.05);
    expect(rates.critical! + rates.high! + rates.medium!).toBeLessThanOrEqual(0.15);
    ProbeResponse.parse(await (await fetch(`${h.api.url}/livez`)).json());
    ProbeResponse.parse(await (await fetch(`${h.api.url}/readyz`)).json());
  });
});
