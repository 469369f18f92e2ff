/**
 * What live phone lookups cost, where operators and organisations see it: scores made by
 * in-process API nodes against the Twilio and Telesign stand-ins (test/helpers/phone-providers.ts)
 * go through Kafka and the audit sink into ClickHouse, where migration 013's view counts them per
 * organisation, provider and outcome (and agrees with the Redis counter the cap reads); the
 * portal's Activity page shows an organisation that opted in its month's lookups against its cap,
 * and one that did not nothing.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usedKey } from '../../shared/capabilities/phone-live-lookup/cache.ts';
import { twilio } from '../../shared/capabilities/phone-live-lookup/fixtures.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { UserStore } from '../../shared/portal/users.ts';
import { cfg, freshMobile, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { startSink, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import {
  ordinaryTwilio,
  telesignStandIn,
  twilioStandIn,
  type StandIn,
  providerNodeEnv,
} from '../helpers/phone-providers.ts';
import { completeSetup, cookiePair, startPortal, type PortalNode } from '../helpers/portal.ts';

const run = randomUUID().slice(0, 8);
type Org = { orgId: string; apiKey: string };
/** The organisation the doc's query is written for (docs/data.md "Phone lookups"). */
const DOC_ORG = 'org_00000000000000a1';

/** The `sql phone-lookups` block of docs/data.md, for `orgId`. */
function docsQuery(orgId: string): string {
  const m = /```sql phone-lookups\n([\s\S]*?)```/.exec(readFileSync('docs/data.md', 'utf8'));
  if (!m) throw new Error('docs/data.md has no `sql phone-lookups` block');
  return m[1]!
    .trim()
    .replaceAll(DOC_ORG, orgId)
    .replaceAll('FROM scores', `FROM ${cfg.CLICKHOUSE_DATABASE}.scores`);
}

describe('phone lookup costs', () => {
  const ch = createClickHouse(cfg.CLICKHOUSE_URL);
  const r = redis();
  let tw: StandIn;
  let ts: StandIn;
  let twNode: InProcessNode;
  let tsNode: InProcessNode;
  let sink: Service;
  let portal: PortalNode;
  let wide: Org;
  let capped: Org;
  let none: Org;

  beforeAll(async () => {
    [tw, ts] = await Promise.all([twilioStandIn(), telesignStandIn()]);
    [twNode, tsNode, portal] = await Promise.all([
      startNode(providerNodeEnv('twilio', tw.url, `token-${run}`)),
      startNode(providerNodeEnv('telesign', ts.url, `key-${run}`)),
      startPortal(),
    ]);
    sink = startSink(await sinkGroupAtEnd());
    const org = () => orgWithKey('bureau', { rateRps: 1000 });
    [wide, capped, none] = await Promise.all([org(), org(), org()]);
    const orgs = new OrgStore(r);
    await orgs.updateOrg(wide.orgId, { phone_lookup_cap: 1000 });
    await orgs.updateOrg(capped.orgId, { phone_lookup_cap: 2 });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([twNode?.stop(), tsNode?.stop(), sink?.stop(), portal?.stop()]);
    await Promise.all([tw?.close(), ts?.close()]);
    await ch.close();
    r.disconnect();
  });

  async function score(node: InProcessNode, org: Org, phone: string): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, org.apiKey, { subject: { phone_number: phone } });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }

  /** The view's rows for `orgs`, by organisation and provider. */
  async function counted(...orgs: Org[]) {
    const ids = orgs.map((o) => `'${o.orgId}'`).join(', ');
    const rows = await ch
      .query({
        query: `SELECT org_id, provider, sum(lookups) AS lookups, sum(answered) AS answered,
                       sum(no_data) AS no_data, sum(failed) AS failed, sum(cache_hits) AS cache_hits, sum(joined) AS joined,
                       sum(refused_cap) AS refused_cap
                FROM ${cfg.CLICKHOUSE_DATABASE}.phone_lookups_daily
                WHERE org_id IN (${ids}) GROUP BY org_id, provider ORDER BY org_id, provider`,
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<Record<string, string | number>>());
    return rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [k, k === 'org_id' || k === 'provider' ? v : Number(v)]),
      ),
    );
  }

  it('counts each lookup per organisation, provider and outcome in ClickHouse, as the cap counted it', async () => {
    const [answered, noData, failing, burst] = [freshMobile(), freshMobile(), freshMobile(), freshMobile()];
    tw.respond((e164, asked) =>
      e164 === noData
        ? { status: 404, body: twilio.error(20404, 404, 'The requested resource was not found') }
        : e164 === failing
          ? { status: 503, body: twilio.error(20503, 503, 'Service Unavailable') }
          : e164 === burst
            ? { body: ordinaryTwilio(e164, asked), delayMs: 200 }
            : undefined,
    );
    for (const n of [answered, answered, noData, failing]) await score(twNode, wide, n);
    // Five requests at once for one number: one lookup, the other four joined it (and paid nothing).
    await Promise.all(Array.from({ length: 5 }, () => score(twNode, wide, burst)));
    expect(tw.calls.get(burst)).toBe(1);
    await score(tsNode, wide, freshMobile());
    for (const n of [freshMobile(), freshMobile(), freshMobile()]) await score(tsNode, capped, n);
    await score(twNode, none, freshMobile());
    const expected = [
      {
        org_id: wide.orgId,
        provider: 'telesign',
        lookups: 1,
        answered: 1,
        no_data: 0,
        failed: 0,
        cache_hits: 0,
        joined: 0,
        refused_cap: 0,
      },
      {
        org_id: wide.orgId,
        provider: 'twilio',
        lookups: 4,
        answered: 2,
        no_data: 1,
        failed: 1,
        cache_hits: 1,
        joined: 4,
        refused_cap: 0,
      },
      {
        org_id: capped.orgId,
        provider: 'telesign',
        lookups: 2,
        answered: 2,
        no_data: 0,
        failed: 0,
        cache_hits: 0,
        joined: 0,
        refused_cap: 1,
      },
    ].sort((a, b) => (a.org_id + a.provider).localeCompare(b.org_id + b.provider));
    const rows = await waitFor(
      'the lookups counted in ClickHouse',
      async () => {
        const got = await counted(wide, capped, none);
        return JSON.stringify(got) === JSON.stringify(expected) ? got : undefined;
      },
      60_000,
      500,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}: ${JSON.stringify(await counted(wide, capped, none))}`);
    });
    expect(rows).toEqual(expected);
    // What the provider billed is what the cap counted, per organisation, across both nodes.
    for (const org of [wide, capped]) {
      const billed = rows
        .filter((row) => row.org_id === org.orgId)
        .reduce((n, row) => n + Number(row.lookups), 0);
      expect(Number(await r.get(usedKey(cfg.CAPABILITY_KEY_PREFIX, org.orgId, Date.now())))).toBe(billed);
    }
    // The query of docs/data.md, as written but for the organisation.
    const doc = await ch
      .query({ query: docsQuery(capped.orgId), format: 'JSONEachRow' })
      .then((rs) => rs.json<Record<string, string | number>>());
    expect(doc).toEqual([expect.objectContaining({ provider: 'telesign' })]);
    expect(Number(doc[0]!.lookups)).toBe(2);
  });

  /** The Activity page's usage panel as the organisation's staff sees it. */
  async function usagePanel(org: Org): Promise<string> {
    const email = `staff-${randomUUID()}@example.test`;
    const { setupToken } = await new UserStore(r).create(org.orgId, email);
    const session = cookiePair(
      await completeSetup(portal.url, setupToken, 'correct horse battery staple'),
      'frs_session',
    )!;
    const res = await fetch(`${portal.url}/activity`, { headers: { cookie: session } });
    expect(res.status).toBe(200);
    const page = (await res.text()).replace(/\s+/g, ' ');
    return page.slice(page.indexOf('<dl class="usage">'), page.indexOf('</dl>'));
  }

  it("shows an organisation that opted in its month's lookups against its cap, and nothing to one that did not", async () => {
    const month = new Date().toISOString().slice(0, 7);
    const used = Number(await r.get(usedKey(cfg.CAPABILITY_KEY_PREFIX, wide.orgId, Date.now())));
    expect(used).toBeGreaterThan(0);
    expect(await usagePanel(wide)).toContain(
      `<dt>Phone lookups ${month}</dt> <dd id="usage-phone-lookups"> ${used} used of 1,000 (${1000 - used} left) </dd>`,
    );
    expect(await usagePanel(capped)).toMatch(/id="usage-phone-lookups"> 2 used of 2 \(cap reached/);
    const nothing = await usagePanel(none);
    expect(nothing).not.toContain('usage-phone-lookups');
    expect(nothing).not.toMatch(/lookup/i);
  });
});
