/**
 * The age of a capability's data (docs/capabilities.md "How old the data is"), on real Redis: the
 * refresher's one-shot builds snapshots under a prefix of this test's own, from a Tor exit feed
 * dated long ago and the installed ASN package (dated by its version); an API node serves them.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_MAX_DATA_AGE_S } from '../../infra/local/seed-data-age.ts';
import { staleDataLines } from '../../infra/local/stale-data.ts';
import { HealthResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode } from '../helpers/in-process.ts';
import { sample, scrape } from '../helpers/metrics.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';
import { waitFor } from '../../infra/harness/wait.ts';

const OLD_AS_OF = '2026-01-01T00:00:00Z';
const DAY_S = 86_400;

describe('data age: data_as_of, records and stale in health; unallocated space not a bogon when stale', () => {
  const capPrefix = `frs:cap:data-age-it-${process.pid}`;
  let dir: string;
  let torFile: string;
  let node: Awaited<ReturnType<typeof startNode>>;
  let apiKey: string;
  // The seed samples' generous limits, except a day for Tor exits and for the network table.
  const env = () => ({
    CAPABILITY_KEY_PREFIX: capPrefix,
    FEED_TOR_EXITS: torFile,
    CAPABILITY_MAX_DATA_AGE_S: `${SEED_MAX_DATA_AGE_S},ip_tor_exit=${DAY_S},ip_network_type=${DAY_S}`,
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'frs-data-age-'));
    torFile = join(dir, 'tor-exits.txt');
    await writeFile(torFile, `# Tor exits\n# as-of: ${OLD_AS_OF}\n185.220.101.1\n185.220.101.2\n`);
    await publishSnapshots(env());
    // A journal of its own: the shared .stack/journal/port-0 is other in-process nodes' too.
    node = await startNode({ ...env(), AUDIT_JOURNAL_DIR: join(dir, 'journal') });
    ({ apiKey } = await orgWithKey('assess', { rateRps: 10_000, credits: 1_000_000 }));
  });

  afterAll(async () => {
    await node?.stop();
    const r = redis();
    await unlinkPrefix(r, capPrefix);
    r.disconnect();
    await rm(dir, { recursive: true, force: true });
  });

  const health = async () => HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json());
  async function scored(ip: string): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, apiKey, { subject: { ip_address: ip } });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }

  it('a feed older than its maximum data age makes the capability stale and degraded', async () => {
    const h = await health();
    expect(h.status).toBe('degraded');
    expect(h.capabilities.ip_tor_exit).toMatchObject({
      status: 'degraded',
      data_as_of: '2026-01-01T00:00:00.000Z',
      records: 2,
      max_data_age_s: DAY_S,
      stale: true,
    });
    // Confirmed just now: stale by the age of its data, not of its last fetch.
    expect(h.capabilities.ip_tor_exit!.age_s).toBeLessThan(600);
    // Health names the feeds with no publisher (their data changes only with a release), and
    // only those: the Tor list has one.
    expect(h.capabilities.ip_tor_exit!.feeds_without_publisher).toBeUndefined();
    expect(h.capabilities.reputation_ledger!.feeds_without_publisher).toEqual(['reputation']);
    expect(h.capabilities.caller_id_integrity!.feeds_without_publisher).toEqual(['carrier']);
    // A checked-in feed within its (raised) limit: its header's date and its entries, not stale.
    const vpnFeed = await readFile(
      new URL('../../infra/feeds/vpn-proxy-ranges.txt', import.meta.url),
      'utf8',
    );
    const vpnAsOf = /^# as-of: (\S+)$/m.exec(vpnFeed)![1]!;
    expect(h.capabilities.ip_vpn_proxy).toMatchObject({
      status: 'ok',
      data_as_of: new Date(vpnAsOf).toISOString(),
      stale: false,
      records: vpnFeed.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')).length,
    });
    // The network table is as old as its oldest feed: the ASN package, dated by its version.
    const network = h.capabilities.ip_network_type!;
    expect(network).toMatchObject({ status: 'degraded', stale: true });
    expect(Date.parse(network.data_as_of!)).toBeLessThanOrEqual(Date.parse('2026-06-18T00:00:00Z'));
    const tor = await scored('185.220.101.1');
    expect(tor.degraded_sources).toContain('ip_tor_exit');
    // Stale data is still used.
    expect(tor.components!.find((c) => c.component === 'ip_tor_exit')!.verdict).toBe('adverse');
  });

  it('a stale Tor list vouches for no address it does not name: no IP_NOT_ANONYMISED, no clean', async () => {
    // A UK access ISP's subscriber: neither list names it, and it is no hosting network.
    const out = await scored('81.2.69.142');
    expect(out.degraded_sources).toContain('ip_tor_exit');
    expect(out.benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');
    expect(out.components!.find((c) => c.component === 'ip_tor_exit')).toMatchObject({
      verdict: 'no_match',
      detail: 'IP_ANONYMISER_LIST_STALE',
      contribution: 0,
    });
    // The VPN list is within its (raised) limit, but it lists whole systems, which map to addresses
    // through the network table, stale here: it vouches for nothing either.
    expect(out.components!.find((c) => c.component === 'ip_vpn_proxy')).toMatchObject({
      verdict: 'no_match',
      detail: 'IP_ANONYMISER_LIST_STALE',
    });
    expect(out.components!.filter((c) => c.verdict === 'clean').map((c) => c.component)).not.toContain(
      'ip_tor_exit',
    );
  });

  it("the start banner's lines name the stale data sets and the command that refreshes them", async () => {
    const lines = staleDataLines((await health()).capabilities, Date.now()).join('\n');
    expect(lines).toMatch(/ip_tor_exit +data of 2026-01-01, \d+ days old \(maximum 1 day\)/);
    expect(lines).toMatch(
      /npm run feeds:update -- .*--from https:\/\/check\.torproject\.org\/torbulkexitlist /,
    );
    expect(lines).toContain('npm run --silent refresh -- ip_tor_exit');
    expect(lines).not.toMatch(/^ +ip_vpn_proxy /m);
  });

  it("/metrics: the age of each capability's data and whether it is stale", async () => {
    const s = await scrape(node.url);
    expect(sample(s, 'frs_capability_data_stale', { capability: 'ip_tor_exit' })).toBe(1);
    expect(sample(s, 'frs_capability_data_stale', { capability: 'ip_vpn_proxy' })).toBe(0);
    const torAge = sample(s, 'frs_capability_data_age_seconds', { capability: 'ip_tor_exit' })!;
    expect(Math.abs(torAge - (Date.now() - Date.parse(OLD_AS_OF)) / 1000)).toBeLessThan(600);
  });

  it('with the network table stale, unallocated space is an unknown network while reserved space is a bogon', async () => {
    const unallocated = await scored('4000::1');
    expect(unallocated.subject!.ip_address!.bogon).toBe(false);
    expect(unallocated.components!.find((c) => c.component === 'ip_network_type')!.detail).not.toBe(
      'IP_BOGON',
    );
    const documentation = await scored('192.0.2.1');
    expect(documentation.subject!.ip_address!.bogon).toBe(true);
    expect(documentation.components!.find((c) => c.component === 'ip_network_type')!.detail).toBe('IP_BOGON');
  });

  it('a feed without a date is refused and the current snapshot stays', async () => {
    const before = (await health()).capabilities.ip_tor_exit!;
    await writeFile(torFile, '185.220.101.1\n185.220.101.2\n185.220.101.3\n');
    // --stale with a tiny freshness limit: the one-shot rebuilds the Tor snapshot, as a refresh would.
    const results = await publishSnapshots(
      { ...env(), CAPABILITY_FRESHNESS_S: 'ip_tor_exit=0.001' },
      { stale: true, allowFailures: true },
    );
    expect(results.find((r) => r.capability === 'ip_tor_exit' && r.outcome === 'failed')?.error).toContain(
      "torExits: no '# as-of: <RFC 3339 date-time>' header",
    );
    const after = await waitFor('health to show the refusal', async () => {
      const h = (await health()).capabilities.ip_tor_exit!;
      return h.last_error?.includes("no '# as-of") === true && h;
    });
    expect(after).toMatchObject({ version: before.version, data_as_of: before.data_as_of, records: 2 });
  });
});
