/**
 * Capability snapshots end to end on real Redis and BullMQ: a refresher and two API nodes share
 * a key prefix; the Tor exit feed is served by a local HTTP server the test changes, breaks and
 * takes down. docs/contract.md "Health"; README "Capabilities, degraded mode and health".
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../shared/capabilities/registry.ts';
import { HealthResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { capabilityJobName } from '../../services/refresher/jobs/capability.ts';
import { REFRESHER_QUEUE } from '../../services/refresher/schedule.ts';
import { startFeedServer, unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { cfg, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import {
  spawnService,
  startApi,
  waitFor,
  type ApiNode,
  type Service,
} from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

/** The feed's data-date header (docs/capabilities.md): a feed without one is refused. */
const AS_OF = `# as-of: ${new Date().toISOString()}\n`;
const TOR_FEED =
  AS_OF + ['185.220.101.1', '185.220.101.2', '185.220.101.3', '185.220.101.4'].join('\n') + '\n';
// A GB access-network address that no seed feed lists.
const SUBJECT = { ip_address: '81.2.69.142' };
/** Long enough that a loaded machine's pauses never age a confirmed snapshot into `degraded`. */
const FRESHNESS_S = 6;

describe('capability snapshots: refresh, bad feeds, source outages', () => {
  // Keys of its own inside the namespaces the services' Redis users may use: the queue under a
  // BULLMQ_PREFIX frs-<name>, the snapshots under a CAPABILITY_KEY_PREFIX frs:cap:<name>.
  const prefix = `frs-caps-it-${process.pid}`;
  const capPrefix = `frs:cap:caps-it-${process.pid}`;
  let feed: Awaited<ReturnType<typeof startFeedServer>>;
  const nodes: ApiNode[] = [];
  let refresher: Service;
  let queue: Queue;
  let connection: Redis;
  let apiKey: string;

  beforeAll(async () => {
    feed = await startFeedServer({ body: TOR_FEED });
    const env = {
      CAPABILITY_KEY_PREFIX: capPrefix,
      BULLMQ_PREFIX: prefix,
      FEED_TOR_EXITS: feed.url,
      FEED_TIMEOUT_MS: '500',
      CAPABILITY_POLL_S: '1',
      // Stale FRESHNESS_S after the last confirmation; the refresher confirms every second.
      CAPABILITY_FRESHNESS_S: `ip_tor_exit=${FRESHNESS_S}`,
      CAPABILITY_REFRESH_S: 'ip_tor_exit=1',
    };
    // A fresh prefix, as a fresh deployment: the refresher's one-shot publishes its first
    // snapshots, then both nodes load them.
    await publishSnapshots(env);
    nodes.push(await startApi(env));
    nodes.push(await startApi(env));
    const spawnedAt = Date.now();
    refresher = spawnService('services/refresher/main.ts', env);
    // The one-shot's build is the only confirmation until the refresher runs; on a slow
    // machine it can age past FRESHNESS_S before the first test scores.
    await waitFor('the refresher to confirm the Tor snapshot on both nodes', async () =>
      (await onBoth(health)).every((h) => confirmedSince(h, spawnedAt)),
    );
    connection = new Redis(cfg.REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue(REFRESHER_QUEUE, { connection, prefix });
    ({ apiKey } = await orgWithKey('assess', { rateRps: 10_000, credits: 1_000_000 }));
  });

  afterAll(async () => {
    await refresher?.stop();
    await Promise.all(nodes.map((n) => n.stop()));
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    connection?.disconnect();
    await feed?.close();
    const r = redis();
    await unlinkPrefix(r, prefix);
    await unlinkPrefix(r, capPrefix);
    r.disconnect();
  });

  async function scored(node: ApiNode): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, apiKey, { subject: SUBJECT });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }
  const torVerdict = (r: ScoreResponse) => r.components!.find((c) => c.component === 'ip_tor_exit')!.verdict;
  const health = async (node: ApiNode) =>
    HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json()).capabilities.ip_tor_exit!;
  const onBoth = <T>(fn: (n: ApiNode) => Promise<T>) => Promise.all(nodes.map(fn));
  const confirmedSince = (h: HealthResponse['capabilities'][string], ms: number) =>
    h.status === 'ok' && h.refreshed_at !== undefined && Date.parse(h.refreshed_at) >= ms;

  it('a changed feed changes the scores of both running nodes, without a restart', async () => {
    for (const r of await onBoth(scored)) {
      expect(torVerdict(r)).toBe('clean');
      expect(r.degraded_sources).toEqual([]);
    }
    const before = (await health(nodes[0]!)).version;

    feed.reply.body = `${TOR_FEED}${SUBJECT.ip_address}\n`;
    await queue.add(capabilityJobName('ip_tor_exit'), {});
    await waitFor('both nodes to see the new Tor exit', async () =>
      (await onBoth(scored)).every((r) => torVerdict(r) === 'adverse'),
    );
    const versions = await onBoth(async (n) => (await health(n)).version);
    expect(versions[0]).not.toBe(before);
    expect(versions[1]).toBe(versions[0]);
    expect((await scored(nodes[0]!)).primary_risk_factor?.code).toBe('IP_TOR_EXIT');
  });

  it('a malformed or shrunk feed leaves the current snapshot in place, and health says why', async () => {
    const { version } = await health(nodes[0]!);
    feed.reply.body = `${TOR_FEED}300.1.2.3\n`;
    await waitFor('health to name the bad line', async () =>
      (await onBoth(health)).every(
        (h) =>
          h.last_error ===
          'torExits: line 6: not an IP address or CIDR: not a dotted-quad IPv4 or an IPv6 address',
      ),
    );
    for (const h of await onBoth(health)) expect(h).toMatchObject({ version, status: 'ok' });
    for (const r of await onBoth(scored)) expect(torVerdict(r)).toBe('adverse');

    feed.reply.body = `${AS_OF}185.220.101.1\n`;
    await waitFor('health to report the shrink', async () =>
      (await health(nodes[1]!)).last_error?.startsWith('shrank from 5 to 1 entries'),
    );
    expect((await health(nodes[1]!)).version).toBe(version);
    expect(torVerdict(await scored(nodes[1]!))).toBe('adverse');

    feed.reply.body = `${TOR_FEED}${SUBJECT.ip_address}\n`;
    await waitFor('a good refresh to clear the error', async () =>
      (await onBoth(health)).every((h) => h.last_error === undefined && h.consecutive_failures === 0),
    );
    expect((await health(nodes[0]!)).version).toBe(version);
  });

  it.each([
    ['HTTP 500', { status: 500, delayMs: 0 }, 'torExits: HTTP 500 from'],
    ['a timeout', { status: 200, delayMs: 2_000 }, 'timed out after 500 ms'],
  ])(
    'the source down (%s): 200s naming ip_tor_exit once stale, health shows it; recovery clears it',
    async (_, down, error) => {
      Object.assign(feed.reply, down);
      const degraded = await waitFor(
        'the snapshot to go stale',
        async () => {
          const rs = await onBoth(scored);
          return rs.every((r) => r.degraded_sources.includes('ip_tor_exit')) && rs;
        },
        15_000,
      );
      // Stale data is still used: the listed exit stays adverse.
      for (const r of degraded) expect(torVerdict(r)).toBe('adverse');
      for (const h of await onBoth(health)) {
        expect(h.status).toBe('degraded');
        expect(h.last_error).toContain(error);
        expect(h.age_s).toBeGreaterThanOrEqual(FRESHNESS_S);
      }
      const overall = HealthResponse.parse(await (await fetch(`${nodes[0]!.url}/v1/health`)).json());
      expect(overall.status).toBe('degraded');

      Object.assign(feed.reply, { status: 200, delayMs: 0 });
      await waitFor(
        'recovery',
        async () => (await onBoth(scored)).every((r) => r.degraded_sources.length === 0),
        15_000,
      );
      for (const h of await onBoth(health))
        expect(h).toMatchObject({ status: 'ok', consecutive_failures: 0 });
    },
  );

  it('restarting the refresher upserts its schedulers instead of adding more', async () => {
    const count = async () => (await queue.getJobSchedulers()).length;
    const before = await count();
    await refresher.stop();
    const restartedAt = Date.now();
    refresher = spawnService('services/refresher/main.ts', {
      CAPABILITY_KEY_PREFIX: capPrefix,
      BULLMQ_PREFIX: prefix,
      FEED_TOR_EXITS: feed.url,
      CAPABILITY_REFRESH_S: 'ip_tor_exit=1',
    });
    await waitFor('the refresher to run again', async () =>
      confirmedSince(await health(nodes[0]!), restartedAt),
    );
    // One scheduler per refreshed capability, and the retention job's.
    expect(before).toBe(CAPABILITIES.length + 1);
    expect(await count()).toBe(before);
  });
});
