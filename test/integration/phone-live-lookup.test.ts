/**
 * Live phone lookups on the request path, against stand-ins that speak Twilio's and Telesign's
 * documented contracts (test/helpers/phone-providers.ts), with in-process API nodes on the real
 * Redis (cache, single flight, cap, breaker) logged in as the API's ACL user.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthResponse, ScoreResponse } from '../../shared/contract/response.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { admin, freshMobile, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import {
  ordinaryTelesign,
  ordinaryTwilio,
  telesignStandIn,
  twilioStandIn,
  type StandIn,
  providerNodeEnv,
} from '../helpers/phone-providers.ts';
import { twilio } from '../../shared/capabilities/phone-live-lookup/fixtures.ts';

const BANDS = ['minimal', 'low', 'medium', 'high', 'critical'];
const CANDIDATE = '2026.12.4';
const run = randomUUID().slice(0, 8);
type Org = { orgId: string; apiKey: string };
type Body = Record<string, unknown>;

async function score(node: InProcessNode, org: Org, phone: string, extra: Body = {}) {
  const res = await scoreCall(node.url, org.apiKey, { subject: { phone_number: phone }, ...extra });
  expect(res.status).toBe(200);
  return (await res.json()) as ScoreResponse;
}
const live = (r: ScoreResponse) => r.components?.find((c) => c.component === 'phone_live_lookup');
const shadowBand = (r: ScoreResponse) => BANDS.indexOf(r.shadow!.band);
const at = (moment: string) => ({
  context: { sector: 'banking', geography: { operating_countries: ['GB'] }, collection_point: { moment } },
  options: { shadow_version: CANDIDATE },
});

/** What GET /v1/health says of the phone lookup, and the node's overall status. */
async function health(node: InProcessNode) {
  const body = (await (await fetch(`${node.url}/v1/health`)).json()) as HealthResponse;
  return { status: body.status, phone_lookup: body.phone_lookup };
}

async function metric(node: InProcessNode, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((l) => pattern.test(l));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('live phone lookups', () => {
  let tw: StandIn;
  let ts: StandIn;
  let twNode: InProcessNode;
  let tsNode: InProcessNode;
  let optedIn: Org;
  let notOptedIn: Org;

  beforeAll(async () => {
    [tw, ts] = await Promise.all([twilioStandIn(), telesignStandIn()]);
    [twNode, tsNode] = await Promise.all([
      startNode(providerNodeEnv('twilio', tw.url, `token-${run}`)),
      startNode(providerNodeEnv('telesign', ts.url, `key-${run}`)),
    ]);
    notOptedIn = await orgWithKey('bureau', { rateRps: 1000 });
    optedIn = await orgWithKey('bureau', { rateRps: 1000 });
    // As an operator turns it on: the admin CLI's monthly cap.
    expect(await admin('org', 'update', '--org', optedIn.orgId, '--phone-lookup-cap', '1000')).toMatchObject({
      phone_lookup_cap: 1000,
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([twNode?.stop(), tsNode?.stop()]);
    await Promise.all([tw?.close(), ts?.close()]);
  });

  it('moves the band of a swapped number being used to authenticate (Twilio)', async () => {
    const n = freshMobile();
    tw.respond((e164, asked) =>
      e164 === n
        ? { body: ordinaryTwilio(e164, asked, { sim_swap: twilio.simSwap(e164, hoursAgo(30)).sim_swap }) }
        : undefined,
    );
    const before = await score(twNode, notOptedIn, n, at('authentication'));
    expect(live(before)).toBeUndefined();
    expect(tw.calls.get(n)).toBeUndefined();
    const after = await score(twNode, optedIn, n, at('authentication'));
    expect(live(after)).toMatchObject({ verdict: 'adverse', detail: 'PHONE_SIM_SWAP_AT_TAKEOVER_MOMENT' });
    expect(shadowBand(after)).toBeGreaterThan(shadowBand(before));
    expect(after.degraded_sources).not.toContain('phone_live_lookup');
  });

  it('moves the band of a number ported two days ago, at a profile change (Telesign)', async () => {
    const n = freshMobile();
    ts.respond((e164, asked) =>
      e164 === n ? { body: ordinaryTelesign(e164, asked, 1, hoursAgo(48)) } : undefined,
    );
    const before = await score(tsNode, notOptedIn, n, at('profile_change'));
    const after = await score(tsNode, optedIn, n, at('profile_change'));
    expect(live(after)).toMatchObject({ verdict: 'adverse', detail: 'PHONE_PORTED_AT_TAKEOVER_MOMENT' });
    expect(shadowBand(after)).toBeGreaterThan(shadowBand(before));
    expect(ts.calls.get(n)).toBe(1);
  });

  it('never looks a number up for an organisation that did not opt in', async () => {
    const numbers = Array.from({ length: 10 }, () => freshMobile());
    for (const n of numbers) {
      const r = await score(twNode, notOptedIn, n, at('authentication'));
      expect(live(r)).toBeUndefined();
      expect(r.degraded_sources).not.toContain('phone_live_lookup');
    }
    expect(numbers.filter((n) => tw.calls.has(n))).toEqual([]);
  });

  it('answers a slow provider inside max_latency_ms, the component degraded, and caches its answer', async () => {
    const n = freshMobile();
    tw.respond((e164, asked) =>
      e164 === n ? { body: ordinaryTwilio(e164, asked), delayMs: 400 } : undefined,
    );
    const r = await score(twNode, optedIn, n, { options: { max_latency_ms: 60 } });
    expect(r.degraded_sources).toContain('phone_live_lookup');
    expect(live(r)).toMatchObject({ verdict: 'unavailable' });
    // The lookup went on past the request's budget and left its answer for the next request.
    const next = await waitFor('the late answer cached', async () => {
      const again = await score(twNode, optedIn, n);
      return live(again)?.verdict === 'clean' ? again : undefined;
    });
    expect(next.degraded_sources).not.toContain('phone_live_lookup');
    expect(tw.calls.get(n)).toBe(1);
    // Once it landed, the number is answered from the cache: no call, a hit.
    const hits = await metric(twNode, /^frs_phone_lookup_cache_total\{result="hit"\}/);
    expect(live(await score(twNode, optedIn, n))?.verdict).toBe('clean');
    expect(tw.calls.get(n)).toBe(1);
    expect(await metric(twNode, /^frs_phone_lookup_cache_total\{result="hit"\}/)).toBe(hits + 1);
  });

  it('looks a number up once for 50 concurrent requests', async () => {
    const n = freshMobile();
    tw.respond((e164, asked) =>
      e164 === n ? { body: ordinaryTwilio(e164, asked), delayMs: 100 } : undefined,
    );
    const all = await Promise.all(Array.from({ length: 50 }, () => score(twNode, optedIn, n)));
    expect(tw.calls.get(n)).toBe(1);
    expect(all.filter((r) => live(r)?.verdict === 'clean').length).toBeGreaterThan(0);
    expect(
      await metric(twNode, new RegExp(`^frs_phone_lookups_total\\{org="${optedIn.orgId}",provider="twilio"`)),
    ).toBeGreaterThan(0);
  });

  it('refuses lookups past the monthly cap while scoring goes on', async () => {
    const capped = await orgWithKey('bureau', { rateRps: 1000 });
    const r = redis();
    await new OrgStore(r).updateOrg(capped.orgId, { phone_lookup_cap: 2 });
    r.disconnect();
    const numbers = [freshMobile(), freshMobile(), freshMobile()];
    const answers = [];
    for (const n of numbers) answers.push(await score(tsNode, capped, n));
    expect(answers.slice(0, 2).map((a) => live(a)?.verdict)).toEqual(['clean', 'clean']);
    expect(answers[2]!.degraded_sources).toContain('phone_live_lookup');
    expect(ts.calls.has(numbers[2]!)).toBe(false);
    expect(
      await metric(
        tsNode,
        new RegExp(`^frs_phone_lookup_refused_total\\{org="${capped.orgId}",reason="cap"\\}`),
      ),
    ).toBe(1);
  });

  it('opens the breaker on failing answers (429, 5xx, malformed), says so in health, and closes it once the provider recovers', async () => {
    expect((await health(tsNode)).phone_lookup).toEqual({
      configured: true,
      provider: 'telesign',
      breaker: 'closed',
    });
    const failing = [
      { status: 503, body: twilio.error(20503, 503, 'Service Unavailable') },
      { status: 429, body: twilio.error(20429, 429, 'Too Many Requests') },
      { status: 200, body: '{"phone_number": ' },
    ];
    let i = 0;
    tw.respond(() => failing[i++ % failing.length]);
    await waitFor('the breaker open', async () => {
      await score(twNode, optedIn, freshMobile());
      return (await metric(twNode, /^frs_phone_lookup_breaker_state/)) === 2;
    });
    const n = freshMobile();
    const refused = await score(twNode, optedIn, n);
    expect(refused.degraded_sources).toContain('phone_live_lookup');
    expect(tw.calls.has(n)).toBe(false);
    // An operator sees it without /metrics: the provider, its open breaker, the node degraded.
    expect(await health(twNode)).toEqual({
      status: 'degraded',
      phone_lookup: { configured: true, provider: 'twilio', breaker: 'open' },
    });
    tw.respond(() => undefined);
    await waitFor('the breaker closed', async () => {
      const r = await score(twNode, optedIn, freshMobile());
      return live(r)?.verdict === 'clean' && (await metric(twNode, /^frs_phone_lookup_breaker_state/)) === 0;
    });
    expect((await health(twNode)).phone_lookup.breaker).toBe('closed');
  });
});

function hoursAgo(h: number): string {
  return new Date(Date.now() - h * 3_600_000).toISOString();
}
