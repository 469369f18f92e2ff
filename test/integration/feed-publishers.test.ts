/**
 * Feeds that refresh themselves from their publishers, end to end on real Redis and BullMQ: a
 * local HTTP server (node:http on 127.0.0.1) serves files in the publishers' own formats, the Tor
 * bulk exit list, an AWS ip-ranges.json and a RIR's delegated-extended statistics, with ETag and
 * Last-Modified; one refresher and two API
 * nodes share a key prefix. The files are generated here (test fixtures, not real lists) at the
 * sizes a genuine file has, since the importers refuse a file smaller than that.
 *
 * Each step prints its timeline (milliseconds since the step's change) for the issue's note.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import {
  freePort,
  spawnService,
  startApi,
  waitFor,
  type ApiNode,
  type Service,
} from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

/** A GB address (AS20712, Andrews & Arnold) on no list here: the Tor step lists it. */
const TOR_SUBJECT = '81.2.69.142';
/** Another address of that network: the cloud step lists its /26 as an AWS range. */
const CLOUD_SUBJECT = '81.2.69.200';
/** In neither the routing nor the country table shipped (an unallocated bogon): the RIR step allocates it. */
const RIR_SUBJECT = '23.154.77.1';
/** Refresh intervals here: the Tor list's, and the network type's (its tables are heavier to read). */
const TOR_REFRESH_S = 3;
const NETWORK_REFRESH_S = 10;
/**
 * Building the network type's snapshot (some 23 MB of range tables) and loading it on a node takes
 * seconds on a loaded two-core machine: a change is live within one interval plus this.
 */
const BUILD_ALLOWANCE_MS = 30_000;

/** A Tor bulk exit list as the Tor Project publishes it: one address per line, nothing else. */
function torList(count: number, extra: string[] = []): string {
  const lines = Array.from(
    { length: count },
    (_, i) => `185.220.${100 + Math.floor(i / 250)}.${1 + (i % 250)}`,
  );
  return [...lines, ...extra].join('\n') + '\n';
}

/** An AWS ip-ranges.json of `count` /24s (3.0.0.0 up), in its published shape and date format. */
function awsRanges(count: number, extra: string[] = []): string {
  const prefix = (ip_prefix: string) => ({
    ip_prefix,
    region: 'eu-west-2',
    service: 'EC2',
    network_border_group: 'eu-west-2',
  });
  return JSON.stringify({
    syncToken: String(Math.floor(Date.now() / 1000)),
    createDate: new Date().toISOString().slice(0, 19).replace('T', '-').replaceAll(':', '-'),
    prefixes: [
      ...Array.from({ length: count }, (_, i) => prefix(`3.${Math.floor(i / 256)}.${i % 256}.0/24`)),
      ...extra.map(prefix),
    ],
    ipv6_prefixes: [],
  });
}

/** ARIN's delegated-extended statistics: `count` /24s from 44.0.0.0, then `extra` start addresses. */
function rirStats(count: number, extra: string[] = []): string {
  const starts = [...Array.from({ length: count }, (_, i) => `44.${i >> 8}.${i & 255}.0`), ...extra];
  // The version line follows ARIN's real one (fixture test/fixtures/publishers/rir): version 2.3,
  // the serial in milliseconds since the epoch, the enddate the file's date. The enddate is today
  // where ARIN is (UTC-5): today's UTC date at midnight UTC-5 lies in the future for the first
  // five hours of every UTC day.
  const today = new Date(Date.now() - 5 * 3_600_000).toISOString().slice(0, 10).replaceAll('-', '');
  return [
    `2.3|arin|${Date.now()}|${starts.length}|19700101|${today}|-0500`,
    'arin|*|asn|*|0|summary',
    `arin|*|ipv4|*|${starts.length}|summary`,
    'arin|*|ipv6|*|0|summary',
    ...starts.map((start) => `arin|US|ipv4|${start}|256|20261120|allocated|fixture`),
  ].join('\n');
}

interface Served {
  body: string;
  etag: string;
  lastModified: string;
}

/** The publishers: a path per file, each with ETag/Last-Modified and 304 on a match. */
class Publisher {
  readonly files = new Map<string, Served>();
  /** Status of each answered request, by path, in order. */
  readonly log: { path: string; status: number; at: number }[] = [];
  down = false;
  private server!: Server;
  private n = 0;
  port = 0;

  set(path: string, body: string): void {
    this.n++;
    this.files.set(path, {
      body,
      etag: `"v${this.n}"`,
      lastModified: new Date(Date.now() - 1000 * (100 - this.n)).toUTCString(),
    });
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res) => {
      const path = req.url ?? '';
      const file = this.files.get(path);
      const answer = (status: number, body = '') => {
        this.log.push({ path, status, at: Date.now() });
        res.writeHead(status, file ? { etag: file.etag, 'last-modified': file.lastModified } : {}).end(body);
      };
      if (this.down) return void req.socket.destroy();
      if (!file) return answer(404);
      if (req.headers['if-none-match'] === file.etag) return answer(304);
      answer(200, file.body);
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    const addr = this.server.address();
    if (addr === null || typeof addr === 'string') throw new Error('no port');
    this.port = addr.port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

describe('feeds refresh themselves from their publishers', () => {
  const prefix = `frs-pubs-it-${process.pid}`;
  const capPrefix = `frs:cap:pubs-it-${process.pid}`;
  const publisher = new Publisher();
  const nodes: ApiNode[] = [];
  let refresher: Service;
  let metricsPort: number;
  let apiKey: string;

  beforeAll(async () => {
    publisher.set('/torbulkexitlist', torList(1200));
    publisher.set('/ip-ranges.json', awsRanges(1100));
    publisher.set('/stats/arin/delegated-arin-extended-latest', rirStats(1100));
    await publisher.start();
    metricsPort = await freePort();
    const env = {
      CAPABILITY_KEY_PREFIX: capPrefix,
      BULLMQ_PREFIX: prefix,
      FEED_TOR_EXITS: publisher.url('/torbulkexitlist'),
      FEED_HOSTING_RANGES: publisher.url('/ip-ranges.json'),
      FEED_ALLOCATED_RANGES: publisher.url('/stats/arin/delegated-arin-extended-latest'),
      FEED_TIMEOUT_MS: '1000',
      CAPABILITY_POLL_S: '1',
      CAPABILITY_REFRESH_S: `ip_tor_exit=${TOR_REFRESH_S},ip_network_type=${NETWORK_REFRESH_S}`,
      REFRESHER_METRICS_PORT: String(metricsPort),
    };
    await publishSnapshots(env);
    nodes.push(await startApi(env), await startApi(env));
    refresher = spawnService('services/refresher/main.ts', env);
    ({ apiKey } = await orgWithKey('assess', { rateRps: 10_000, credits: 1_000_000 }));
    // The refresher's first runs: every source answered (304 after the one-shot's downloads).
    await waitFor('the refresher to confirm both sources', async () =>
      ['/torbulkexitlist', '/ip-ranges.json'].every((p) =>
        publisher.log.some((l) => l.path === p && l.status === 304),
      ),
    );
  }, 240_000);

  afterAll(async () => {
    await refresher?.stop();
    await Promise.all(nodes.map((n) => n.stop()));
    await publisher.close();
    const r = redis();
    await unlinkPrefix(r, prefix);
    await unlinkPrefix(r, capPrefix);
    r.disconnect();
  });

  const onBoth = <T>(fn: (n: ApiNode) => Promise<T>) => Promise.all(nodes.map(fn));
  async function scored(node: ApiNode, ip: string): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, apiKey, { subject: { ip_address: ip } });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }
  const detail = (r: ScoreResponse, component: string) =>
    r.components!.find((c) => c.component === component);
  const health = async (node: ApiNode, name: string) =>
    HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json()).capabilities[name]!;

  /** Waits until `fn` holds on both nodes, and returns when each first did, in ms after `t0`. */
  async function reachesBoth(what: string, t0: number, fn: (n: ApiNode) => Promise<boolean>) {
    const seen: (number | undefined)[] = [undefined, undefined];
    await waitFor(
      what,
      async () => {
        await Promise.all(
          nodes.map(async (n, i) => {
            if (seen[i] === undefined && (await fn(n))) seen[i] = Date.now() - t0;
          }),
        );
        return seen.every((s) => s !== undefined);
      },
      30_000,
      50,
    );
    return seen as number[];
  }

  it('a new Tor list, cloud range file and RIR file reach both nodes within one refresh interval', async () => {
    for (const r of await onBoth((n) => scored(n, TOR_SUBJECT)))
      expect(detail(r, 'ip_tor_exit')?.verdict).toBe('clean');
    for (const r of await onBoth((n) => scored(n, CLOUD_SUBJECT)))
      expect(detail(r, 'ip_network_type')?.detail).not.toBe('IP_HOSTING');

    for (const r of await onBoth((n) => scored(n, RIR_SUBJECT)))
      expect(detail(r, 'ip_network_type')?.detail).toBe('IP_BOGON');

    const t0 = Date.now();
    publisher.set('/torbulkexitlist', torList(1200, [TOR_SUBJECT]));
    publisher.set('/ip-ranges.json', awsRanges(1100, ['81.2.69.192/26']));
    publisher.set('/stats/arin/delegated-arin-extended-latest', rirStats(1100, ['23.154.77.0']));
    const tor = await reachesBoth('the new Tor exit on both nodes', t0, async (n) => {
      const r = await scored(n, TOR_SUBJECT);
      return detail(r, 'ip_tor_exit')?.detail === 'IP_TOR_EXIT' && r.subject?.ip_address?.tor === true;
    });
    const cloud = await reachesBoth('the new cloud range on both nodes', t0, async (n) => {
      const r = await scored(n, CLOUD_SUBJECT);
      return detail(r, 'ip_network_type')?.detail === 'IP_HOSTING' && r.subject?.ip_address?.hosting === true;
    });
    const rir = await reachesBoth('the new allocation on both nodes', t0, async (n) => {
      const r = await scored(n, RIR_SUBJECT);
      return (
        detail(r, 'ip_network_type')?.detail === 'IP_NETWORK_UNKNOWN' &&
        r.subject?.ip_address?.bogon === false
      );
    });
    const fetched = (p: string) =>
      publisher.log.find((l) => l.path === p && l.status === 200 && l.at >= t0)!.at - t0;
    const timeline = {
      tor: { interval: TOR_REFRESH_S * 1000, downloaded: fetched('/torbulkexitlist'), nodes: tor },
      cloud: { interval: NETWORK_REFRESH_S * 1000, downloaded: fetched('/ip-ranges.json'), nodes: cloud },
      rir: {
        interval: NETWORK_REFRESH_S * 1000,
        downloaded: fetched('/stats/arin/delegated-arin-extended-latest'),
        nodes: rir,
      },
    };
    console.log('timeline (ms after the publisher changed the three files):', JSON.stringify(timeline));
    for (const { interval, downloaded, nodes: live } of Object.values(timeline)) {
      // Fetched within one interval of the change (a little slack for the scheduler's own timer),
      // and live on both nodes once built and loaded.
      expect(downloaded).toBeLessThan(interval + 1_000);
      for (const ms of live) expect(ms).toBeLessThan(interval + BUILD_ALLOWANCE_MS);
    }
    // The Tor list is small: it is live on both nodes within one interval of its change.
    for (const ms of tor) expect(ms).toBeLessThan(TOR_REFRESH_S * 1000 + 1_000);
    const h = await health(nodes[0]!, 'ip_tor_exit');
    expect(h).toMatchObject({ status: 'ok', records: 1201 });
    expect((await health(nodes[1]!, 'ip_tor_exit')).version).toBe(h.version);
  });

  it('an unchanged file (304) rebuilds nothing', async () => {
    const before = await health(nodes[0]!, 'ip_tor_exit');
    const t0 = Date.now();
    await waitFor(
      'two more 304s from the Tor publisher',
      async () =>
        publisher.log.filter((l) => l.path === '/torbulkexitlist' && l.at > t0 && l.status === 304).length >=
        2,
    );
    await waitFor('the confirmation to reach the node', async () => {
      const h = await health(nodes[0]!, 'ip_tor_exit');
      return Date.parse(h.refreshed_at!) > t0;
    });
    const after = await health(nodes[0]!, 'ip_tor_exit');
    expect(after.version).toBe(before.version);
    expect(after.data_as_of).toBe(before.data_as_of);
    expect(
      publisher.log.filter((l) => l.path === '/torbulkexitlist' && l.at > t0 && l.status === 200),
    ).toEqual([]);
    console.log(
      `304 step: version ${after.version} kept, refreshed_at ${before.refreshed_at} -> ${after.refreshed_at}`,
    );
  });

  it.each([
    ['truncated', () => torList(40, [TOR_SUBJECT]), 'only 41 records'],
    ['garbled', () => '<html><body>502 Bad Gateway</body></html>\n', 'line 1: not an IP address'],
    ['shrunk by more than half', () => torList(520, [TOR_SUBJECT]), 'shrank from 1201 to 521 entries'],
  ])('a %s Tor list is refused and the last good snapshot stays', async (_, body, error) => {
    const { version } = await health(nodes[0]!, 'ip_tor_exit');
    const t0 = Date.now();
    publisher.set('/torbulkexitlist', body());
    const failedAfter = await reachesBoth('health to report the refusal', t0, async (n) =>
      ((await health(n, 'ip_tor_exit')).last_error ?? '').includes(error),
    );
    for (const h of await onBoth((n) => health(n, 'ip_tor_exit'))) {
      expect(h).toMatchObject({ version, status: 'ok' });
      expect(h.consecutive_failures).toBeGreaterThanOrEqual(1);
    }
    for (const r of await onBoth((n) => scored(n, TOR_SUBJECT)))
      expect(detail(r, 'ip_tor_exit')?.detail).toBe('IP_TOR_EXIT');
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/frs_refresher_failures_total\{task="ip_tor_exit"\} [1-9]/);
    console.log(
      `refusal (${error}): reported on both nodes after ${failedAfter.join(' / ')} ms; version ${version} kept`,
    );
    // Back to the good list: the same bytes as the snapshot, so nothing is rebuilt.
    publisher.set('/torbulkexitlist', torList(1200, [TOR_SUBJECT]));
    await waitFor('a good refresh to clear the error', async () =>
      (await onBoth((n) => health(n, 'ip_tor_exit'))).every((h) => h.consecutive_failures === 0),
    );
    expect((await health(nodes[0]!, 'ip_tor_exit')).version).toBe(version);
  });

  it('an unreachable publisher marks nothing unavailable while the snapshot is within its maximum age', async () => {
    const { version } = await health(nodes[0]!, 'ip_tor_exit');
    const t0 = Date.now();
    publisher.down = true;
    try {
      const failedAfter = await reachesBoth('health to report the outage', t0, async (n) =>
        ((await health(n, 'ip_tor_exit')).last_error ?? '').includes('unreachable'),
      );
      for (const n of nodes) {
        const h = await health(n, 'ip_tor_exit');
        expect(h.status).not.toBe('unavailable');
        expect(h).toMatchObject({ version, stale: false });
        const r = await scored(n, TOR_SUBJECT);
        expect(detail(r, 'ip_tor_exit')?.verdict).toBe('adverse');
        expect(detail(r, 'ip_network_type')?.verdict).not.toBe('unavailable');
        expect(r.components!.filter((c) => c.verdict === 'unavailable')).toEqual([]);
      }
      console.log(`outage: reported on both nodes after ${failedAfter.join(' / ')} ms; nothing unavailable`);
    } finally {
      publisher.down = false;
    }
    await waitFor('recovery', async () =>
      (await onBoth((n) => health(n, 'ip_tor_exit'))).every((h) => h.consecutive_failures === 0),
    );
  });
});
