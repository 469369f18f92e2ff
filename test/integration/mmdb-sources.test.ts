/**
 * MaxMind DB files as feeds, end to end on real Redis: the refresher's one-shot build reads
 * MaxMind's test databases (test/fixtures/mmdb/) where the VPN/proxy, hosting and ASN feeds would
 * be, publishes the snapshots, and two API nodes score with them. docs/data-sources.md "MaxMind DB
 * (`.mmdb`) files as sources".
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { startApi, type ApiNode } from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/mmdb');
// The test databases were built on 2026-02-04: older than the capabilities' maximum data age, which
// this test is not about.
const TEN_YEARS_S = 10 * 365 * 24 * 3600;

describe('MaxMind DB sources through the refresher and the API', () => {
  const capPrefix = `frs:cap:mmdb-it-${process.pid}`;
  const prefix = `frs-mmdb-it-${process.pid}`;
  const nodes: ApiNode[] = [];
  let apiKey: string;

  beforeAll(async () => {
    const env = {
      CAPABILITY_KEY_PREFIX: capPrefix,
      BULLMQ_PREFIX: prefix,
      FEED_VPN_PROXY_RANGES: join(FIXTURES, 'GeoIP2-Anonymous-IP-Test.mmdb'),
      FEED_HOSTING_RANGES: join(FIXTURES, 'GeoIP2-Anonymous-IP-Test.mmdb'),
      FEED_ASN: join(FIXTURES, 'GeoLite2-ASN-Test.mmdb'),
      CAPABILITY_MAX_DATA_AGE_S: `ip_vpn_proxy=${TEN_YEARS_S},ip_network_type=${TEN_YEARS_S}`,
    };
    const published = await publishSnapshots(env);
    expect(published.map((p) => p.capability)).toEqual(
      expect.arrayContaining(['ip_vpn_proxy', 'ip_network_type']),
    );
    nodes.push(await startApi(env), await startApi(env));
    ({ apiKey } = await orgWithKey('assess', { rateRps: 10_000, credits: 1_000_000 }));
  });

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    const r = redis();
    await unlinkPrefix(r, capPrefix);
    await unlinkPrefix(r, prefix);
    r.disconnect();
  });

  const scored = async (node: ApiNode, ip: string) => {
    const res = await scoreCall(node.url, apiKey, { subject: { ip_address: ip } });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  };
  const detail = (r: ScoreResponse, component: string) =>
    r.components!.find((c) => c.component === component)?.detail;

  it('both nodes answer from the databases: VPN, hosting and the AS of the test data', async () => {
    for (const node of nodes) {
      // Source data of the test databases: 1.2.0.0/16 is_anonymous_vpn; 71.160.223.0/24
      // is_hosting_provider; 1.0.0.0/24 AS15169 "Google Inc." (the shipped routing table says AS13335).
      const vpn = await scored(node, '1.2.3.4');
      expect(vpn.subject?.ip_address).toMatchObject({ vpn: true });
      expect(detail(vpn, 'ip_vpn_proxy')).toBe('IP_VPN_PROXY');
      const hosting = await scored(node, '71.160.223.9');
      expect(hosting.subject?.ip_address).toMatchObject({ hosting: true, vpn: false });
      expect(detail(hosting, 'ip_network_type')).toBe('IP_HOSTING');
      const google = await scored(node, '1.0.0.1');
      expect(google.subject?.ip_address).toMatchObject({ asn: 'AS15169', as_name: 'Google Inc.' });
    }
  });
});
