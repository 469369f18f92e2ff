/**
 * A production drill, on real Redis: the capabilities start from the checked-in seed data, dated
 * past their maximum data ages, and the refresher runs one cycle against a local mirror (node:http
 * on 127.0.0.1) of their publishers, which serves RECORDED REAL published files, whole
 * (test/fixtures/publishers/drill/README.md), at the publishers' own paths (`/<host>/<path>`).
 * Each FEED_* variable names the mirror's copies of the production publishers (docker-compose.yml,
 * the capabilities' `sources[...].publishers`) that the drill has a file of. The nodes run with the
 * capabilities' REAL maximum data ages, not the ten years the harness gives the seeds
 * (infra/local/seed-data-age.ts).
 *
 * What the recorded files cannot make fresh, asserted as it then is:
 * - The network type's registry-country table (FEED_IP_COUNTRY) and allocation table
 *   (FEED_ALLOCATED_RANGES) stay the seed's: the only whole registry statistics files that could be
 *   recorded are older than their 120-day maximum. The network type's `data_as_of` is its oldest
 *   part, the seed's country table of June 2026, so it stays stale whatever else is refreshed.
 * - Its routing table (FEED_ASN) is IPtoASN's ip2asn-v6 file alone: no verbatim copy of the v4 file
 *   could be recorded. A routing table without a single IPv4 row is refused by the network type's
 *   build ("asn: no entries", shared/capabilities/ip-network-type/index.ts: it counts IPv4 rows),
 *   so the whole refresh of the network type is refused (its hosting ranges with it) and the seed
 *   snapshot stays: the drill shows that refusal, in health, and the seed's routing table still
 *   answering. (Had it been built, it would also have lost ~80 % of the seed's rows, past the
 *   refresher's shrink guard, FEED_MAX_SHRINK 0.5.)
 * - Google's cloud.json is left out of FEED_HOSTING_RANGES: the one recorded is from 2025, and
 *   the merged hosting feed, dated by its oldest file, would be past its maximum age.
 *
 * The Tor and VPN lists carry no date: they are dated when fetched, so one refresh makes them
 * fresh. The VPN list also names whole systems (autonomous systems), which map to addresses
 * through the network type's routing table: while that table is stale, the VPN list vouches for no
 * address it does not name (no IP_NOT_ANONYMISED), the designed rule
 * (shared/capabilities/ip-vpn-proxy/index.ts `finding`). A second node, on which an operator
 * accepts the network type's old tables (only ip_network_type's maximum data age raised), vouches
 * for it.
 *
 * It prints one line per capability, `capability: stale -> fresh in N s`, for the note.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { spawnService, type Service } from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { FEEDS } from '../../shared/capabilities/registry.ts';
import { HealthResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { dataPackages, packageDataAsOf } from '../../shared/resolution/data-packages.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';

const DRILL = join(import.meta.dirname, '../fixtures/publishers/drill');
const LISTS_VPN = 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input';
const DAY_S = 86_400;

/** The publishers' files recorded for the drill, by the publisher's URL (drill/README.md). */
const RECORDED: Readonly<Record<string, { file: string; unpack?: true }>> = {
  'https://check.torproject.org/torbulkexitlist': { file: 'torbulkexitlist' },
  [`${LISTS_VPN}/vpn/ASN.txt`]: { file: 'x4bnet-167937a7/input/vpn/ASN.txt' },
  [`${LISTS_VPN}/vpn/ips/mullvadvpn.txt`]: { file: 'x4bnet-167937a7/input/vpn/ips/mullvadvpn.txt' },
  [`${LISTS_VPN}/vpn/ips/pia.txt`]: { file: 'x4bnet-167937a7/input/vpn/ips/pia.txt' },
  [`${LISTS_VPN}/vpn/ips/protonvpn.txt`]: { file: 'x4bnet-167937a7/input/vpn/ips/protonvpn.txt' },
  [`${LISTS_VPN}/datacenter/ASN.txt`]: { file: 'x4bnet-167937a7/input/datacenter/ASN.txt' },
  // Kept gzipped in the repository; AWS serves it plain, and so does the mirror.
  'https://ip-ranges.amazonaws.com/ip-ranges.json': { file: 'ip-ranges.json.gz', unpack: true },
  // Served as it is: the publisher's file is itself a .gz.
  'https://iptoasn.com/data/ip2asn-v6.tsv.gz': { file: 'ip2asn-v6.tsv.gz' },
};

/** The feeds the drill points at the mirror (FEED_IP_COUNTRY and FEED_ALLOCATED_RANGES stay unset). */
const DRILLED = ['torExits', 'vpnProxy', 'hosting', 'asn'] as const;

/** Declared publishers of those feeds the drill has no file of (asserted: a new one shows here). */
const LEFT_OUT: Readonly<Record<string, readonly string[]>> = {
  // Google's recorded cloud.json is of 2025-07-25: the hosting feed is dated by its oldest file.
  hosting: ['https://www.gstatic.com/ipranges/cloud.json'],
  // No verbatim copy of ip2asn-v4 could be recorded (test/fixtures/publishers/PROVENANCE.md).
  asn: ['https://iptoasn.com/data/ip2asn-v4.tsv.gz'],
  // Apple states no licence for its relay list: only a 20-line excerpt is kept, far below the
  // 10,000 records a genuine copy has (the refresher would refuse it as truncated).
  vpnProxy: ['https://mask-api.icloud.com/egress-ip-ranges.csv'],
};

const recorded = (file: string) => readFileSync(join(DRILL, file), 'utf8');
/** Line 1 of the recorded Tor list (185.241.208.232), and of Mullvad's servers (23.144.160.67/32). */
const TOR_EXIT = recorded('torbulkexitlist').split('\n')[0]!;
const MULLVAD = recorded('x4bnet-167937a7/input/vpn/ips/mullvadvpn.txt').split('\n')[0]!.replace('/32', '');
/** The lines of the four lists_vpn files: 15 systems and 4,829 servers' addresses or ranges. */
const VPN_RECORDS = ['vpn/ASN.txt', 'vpn/ips/mullvadvpn.txt', 'vpn/ips/pia.txt', 'vpn/ips/protonvpn.txt']
  .map(
    (f) =>
      recorded(`x4bnet-167937a7/input/${f}`)
        .split('\n')
        .filter((l) => l.trim() !== '').length,
  )
  .reduce((a, b) => a + b, 0);
/** A UK access ISP's subscriber (AS20712, Andrews & Arnold): on no list. */
const ACCESS = '81.2.69.142';
/** In WIDE's 2001:200:: to 2001:200:5ff:…, AS2500 in ip2asn and in the seed alike. */
const WIDE = '2001:200::1';
/** 2001:200:600::/40: AS7667 (KDDI R&D Laboratories) in the recorded ip2asn, AS2500 in the seed. */
const KDDI_LAB = '2001:200:600::1';

/** The date of the seed's registry-country table (and of its routing table: one package date). */
const SEED_COUNTRY_AS_OF = new Date(
  packageDataAsOf('@ip-location-db/geo-whois-asn-country', dataPackages().ipCountry.version)!,
).toISOString();

/** Serves each recorded file at `/<publisher's host>/<publisher's path>`. */
class Mirror {
  /** The paths answered with a file, in order. */
  readonly served: string[] = [];
  private readonly files = new Map<string, Buffer>();
  private server?: Server;
  private port = 0;

  constructor(files: typeof RECORDED) {
    for (const [publisher, { file, unpack }] of Object.entries(files)) {
      const bytes = readFileSync(join(DRILL, file));
      this.files.set(Mirror.pathOf(publisher), unpack ? gunzipSync(bytes) : bytes);
    }
  }

  static pathOf(publisher: string): string {
    const u = new URL(publisher);
    return `/${u.host}${u.pathname}`;
  }

  url(publisher: string): string {
    return `http://127.0.0.1:${this.port}${Mirror.pathOf(publisher)}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const body = this.files.get(req.url ?? '');
      if (!body) return void res.writeHead(404).end();
      this.served.push(req.url!);
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    const addr = this.server.address();
    if (addr === null || typeof addr === 'string') throw new Error('no port');
    this.port = addr.port;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((r) => this.server!.close(r));
  }
}

/** Each drilled FEED_* variable: the mirror's URLs of its declared publishers the drill has. */
function feedEnv(mirror: Mirror): Record<string, string> {
  return Object.fromEntries(
    DRILLED.map((feed) => {
      const source = FEEDS[feed]!;
      const urls = source.publishers.filter((p) => p in RECORDED).map((p) => mirror.url(p));
      return [source.env, urls.join(',')];
    }),
  );
}

type Capabilities = HealthResponse['capabilities'];
const healthOf = async (node: InProcessNode): Promise<Capabilities> =>
  HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json()).capabilities;
const detail = (r: ScoreResponse, component: string) => r.components!.find((c) => c.component === component);

/** Polls the node's health until every condition held once; returns when each first did (ms). */
async function firstTimes(
  node: InProcessNode,
  conditions: Record<string, (h: Capabilities) => boolean>,
): Promise<Record<string, number>> {
  const first: Record<string, number> = {};
  await waitFor(
    `${Object.keys(conditions).join(', ')} on the node`,
    async () => {
      const h = await healthOf(node);
      for (const [cap, holds] of Object.entries(conditions))
        if (first[cap] === undefined && holds(h)) first[cap] = Date.now();
      return Object.keys(conditions).every((cap) => first[cap] !== undefined);
    },
    90_000,
    50,
  );
  return first;
}

describe("production drill: the publishers' recorded files refresh the stale seeds", () => {
  const capPrefix = `frs:cap:drill-it-${process.pid}`;
  const bullPrefix = `frs-drill-it-${process.pid}`;
  const mirror = new Mirror(RECORDED);
  // The capabilities' own maximum data ages: this empty value replaces the ten years that startNode
  // and serviceEnv put first (SEED_MAX_DATA_AGE_S).
  const env = { CAPABILITY_KEY_PREFIX: capPrefix, CAPABILITY_MAX_DATA_AGE_S: '', CAPABILITY_POLL_S: '1' };
  const nodes: InProcessNode[] = [];
  let refresher: Service | undefined;
  let apiKey: string;
  let before: Capabilities;
  let window: { from: number; to: number };

  beforeAll(async () => {
    await mirror.start();
    // The first snapshots, from the seeds (no FEED_* set), as a fresh deployment gets them.
    await publishSnapshots(env);
    nodes.push(await startNode(env));
    ({ apiKey } = await orgWithKey('assess', { rateRps: 10_000, credits: 1_000_000 }));
  }, 180_000);

  afterAll(async () => {
    await refresher?.stop();
    await Promise.all(nodes.map((n) => n.stop()));
    await mirror.close();
    const r = redis();
    await unlinkPrefix(r, capPrefix);
    await unlinkPrefix(r, bullPrefix);
    r.disconnect();
  });

  async function scored(node: InProcessNode, ip: string): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, apiKey, { subject: { ip_address: ip } });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }

  it("each drilled feed names the mirror's copy of every declared publisher but those left out", () => {
    const left = (feed: string) => FEEDS[feed]!.publishers.filter((p) => !(p in RECORDED));
    for (const feed of DRILLED) expect(left(feed), feed).toEqual(LEFT_OUT[feed] ?? []);
    // Every recorded file stands at a declared publisher's own path.
    const declared = DRILLED.flatMap((feed) => FEEDS[feed]!.publishers);
    for (const publisher of Object.keys(RECORDED)) expect(declared).toContain(publisher);
  });

  it('before: the seeds, under the real maximum data ages, are stale', async () => {
    before = await healthOf(nodes[0]!);
    expect(before.ip_tor_exit).toMatchObject({ stale: true, max_data_age_s: DAY_S });
    expect(before.ip_vpn_proxy).toMatchObject({ stale: true, max_data_age_s: 14 * DAY_S });
    expect(before.ip_network_type).toMatchObject({ stale: true, max_data_age_s: 120 * DAY_S });
    for (const cap of ['ip_tor_exit', 'ip_vpn_proxy', 'ip_network_type'])
      expect(before[cap]!.last_error, cap).toBeUndefined();
    // The seed's routing table, to compare with the drill's.
    expect((await scored(nodes[0]!, KDDI_LAB)).subject?.ip_address?.asn).toBe('AS2500');
    expect((await scored(nodes[0]!, ACCESS)).subject?.ip_address?.asn).toBe('AS20712');
  });

  it('one refresh cycle from the mirror: Tor exits and VPN lists turn fresh, the network type is refused', async () => {
    const from = Date.now();
    // One refresher process, with the production defaults: its first run of every job is at once
    // (jobs/capability.ts).
    refresher = spawnService('services/refresher/main.ts', {
      ...env,
      ...feedEnv(mirror),
      BULLMQ_PREFIX: bullPrefix,
    });
    const reached: Record<string, (h: Capabilities) => boolean> = {
      ip_tor_exit: (h) => h.ip_tor_exit?.stale === false,
      ip_vpn_proxy: (h) => h.ip_vpn_proxy?.stale === false,
      // The v6-only routing table is refused (header): the node reports the failed refresh.
      ip_network_type: (h) => h.ip_network_type?.last_error !== undefined,
    };
    const done = await firstTimes(nodes[0]!, reached);
    window = { from, to: Date.now() };
    await refresher.stop();
    const after = await healthOf(nodes[0]!);
    for (const cap of Object.keys(reached)) {
      const s = ((done[cap]! - from) / 1000).toFixed(1);
      const refused = after[cap]!.last_error;
      console.log(
        `${cap}: stale -> ${after[cap]!.stale ? 'stale' : 'fresh'} in ${s} s${refused ? ` (refused: ${refused})` : ''}`,
      );
    }
    // Every recorded file was fetched from the mirror (a refused refresh is retried: some twice).
    expect([...new Set(mirror.served)].sort()).toEqual(Object.keys(RECORDED).map(Mirror.pathOf).sort());
  });

  it('after: Tor and VPN data as of the fetch; the network type keeps the stale seed, and says why', async () => {
    const h = await healthOf(nodes[0]!);
    const fetchedInWindow = (asOf: string | undefined) => {
      const t = Date.parse(asOf!);
      return t >= window.from - 1000 && t <= window.to;
    };
    expect(h.ip_tor_exit).toMatchObject({ status: 'ok', stale: false, records: 1305 });
    expect(h.ip_vpn_proxy).toMatchObject({ status: 'ok', stale: false, records: VPN_RECORDS });
    for (const cap of ['ip_tor_exit', 'ip_vpn_proxy']) expect(h[cap]!.last_error, cap).toBeUndefined();
    expect(fetchedInWindow(h.ip_tor_exit!.data_as_of)).toBe(true);
    expect(fetchedInWindow(h.ip_vpn_proxy!.data_as_of)).toBe(true);
    // The seed snapshot stays (its hosting ranges too), as old as its oldest part, the seed's
    // routing and country tables (one package date), and stale.
    expect(h.ip_network_type).toMatchObject({
      status: 'degraded',
      stale: true,
      version: before.ip_network_type!.version,
      data_as_of: SEED_COUNTRY_AS_OF,
      last_error: 'asn: no entries',
    });
    // So the routing table is the seed's still: ip2asn would say AS7667 for KDDI's lab, and no AS
    // for an IPv4 address.
    expect((await scored(nodes[0]!, WIDE)).subject?.ip_address?.asn).toBe('AS2500');
    expect((await scored(nodes[0]!, KDDI_LAB)).subject?.ip_address?.asn).toBe('AS2500');
    expect((await scored(nodes[0]!, ACCESS)).subject?.ip_address?.asn).toBe('AS20712');
  });

  it('a listed exit and a listed VPN server are named, and never IP_NOT_ANONYMISED', async () => {
    const exit = await scored(nodes[0]!, TOR_EXIT);
    expect(detail(exit, 'ip_tor_exit')).toMatchObject({ verdict: 'adverse', detail: 'IP_TOR_EXIT' });
    expect(exit.benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');
    const vpn = await scored(nodes[0]!, MULLVAD);
    expect(detail(vpn, 'ip_vpn_proxy')).toMatchObject({ verdict: 'elevated', detail: 'IP_VPN_PROXY' });
    expect(vpn.benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');
  });

  it('an access address: no IP_NOT_ANONYMISED while the network type is stale; vouched for once an operator accepts its age', async () => {
    // The drill as run: the Tor list (fresh) answers clean, but the VPN list, which names whole
    // systems mapped through the stale routing table, vouches for nothing: no IP_NOT_ANONYMISED.
    const drill = await scored(nodes[0]!, ACCESS);
    expect(detail(drill, 'ip_tor_exit')).toMatchObject({ verdict: 'clean', detail: 'IP_NOT_ANONYMISED' });
    expect(detail(drill, 'ip_vpn_proxy')).toMatchObject({
      verdict: 'no_match',
      detail: 'IP_ANONYMISER_LIST_STALE',
    });
    expect(drill.benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');

    // A second node on which the operator holds only ip_network_type to a longer maximum: 400
    // days (or a month past the seed tables' age, should this run after mid-2027). Both lists
    // answer clean there, and the address is vouched for.
    const ageDays = Math.ceil((Date.now() - Date.parse(SEED_COUNTRY_AS_OF)) / 1000 / DAY_S);
    const accepted = Math.max(400, ageDays + 30);
    const node = await startNode({
      ...env,
      CAPABILITY_MAX_DATA_AGE_S: `ip_network_type=${accepted * DAY_S}`,
    });
    nodes.push(node);
    const h = await healthOf(node);
    expect(h.ip_network_type).toMatchObject({ stale: false, data_as_of: SEED_COUNTRY_AS_OF });
    const vouched = await scored(node, ACCESS);
    for (const c of ['ip_tor_exit', 'ip_vpn_proxy'])
      expect(detail(vouched, c), c).toMatchObject({ verdict: 'clean', detail: 'IP_NOT_ANONYMISED' });
    expect(vouched.benign_exclusions).toContain('IP_NOT_ANONYMISED');
    // The listed ones stay named there too.
    expect((await scored(node, TOR_EXIT)).benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');
    expect((await scored(node, MULLVAD)).benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');
  });
});
