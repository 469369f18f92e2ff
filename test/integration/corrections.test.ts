/**
 * Operator corrections end to end (docs/capabilities.md "Operator corrections"): the admin CLI
 * clears a Tor exit's flag; both API nodes answer corrected within one poll, a feed refresh that
 * publishes a new Tor snapshot leaves the correction in force, and removing it brings the listed
 * answer back; a range written IPv4-mapped (`::ffff:a.b.c.d/120`) applies to the IPv4 addresses it
 * maps. A refresher and the Tor feed (a local HTTP server) as in capabilities.test.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { capabilityJobName } from '../../services/refresher/jobs/capability.ts';
import { REFRESHER_QUEUE } from '../../services/refresher/schedule.ts';
import { startFeedServer, unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { cfg, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import {
  serviceEnv,
  spawnService,
  startApi,
  waitFor,
  type ApiNode,
  type Service,
} from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';
import { CorrectionStore, MAX_CORRECTIONS } from '../../shared/capabilities/corrections.ts';

const run = promisify(execFile);
const AS_OF = `# as-of: ${new Date().toISOString()}\n`;
// A GB access-network address, listed here as a Tor exit beside four others.
const SUBJECT = { ip_address: '81.2.69.142' };
const EXITS = ['185.220.101.1', '185.220.101.2', '185.220.101.3', '185.220.101.4', SUBJECT.ip_address];
const feedOf = (exits: string[]) => AS_OF + exits.join('\n') + '\n';

describe('operator corrections: both nodes, through a feed refresh', () => {
  const prefix = `frs-corr-it-${process.pid}`;
  const capPrefix = `frs:cap:corr-it-${process.pid}`;
  // The local stack's users are those of whichever checkout last started it, which may predate
  // the correction keys; redis-acl.test.ts checks this checkout's rules for them. Here the nodes
  // and the CLI log in as the stack's default user.
  const durable = new URL(cfg.REDIS_URL);
  durable.username = 'default';
  const env = {
    REDIS_URL: durable.toString(),
    CAPABILITY_KEY_PREFIX: capPrefix,
    BULLMQ_PREFIX: prefix,
    FEED_TIMEOUT_MS: '500',
    CAPABILITY_POLL_S: '1',
    CAPABILITY_REFRESH_S: 'ip_tor_exit=3600',
  };
  let feed: Awaited<ReturnType<typeof startFeedServer>>;
  const nodes: ApiNode[] = [];
  let refresher: Service;
  let queue: Queue;
  let connection: Redis;
  let apiKey: string;

  beforeAll(async () => {
    feed = await startFeedServer({ body: feedOf(EXITS) });
    const withFeed = { ...env, FEED_TOR_EXITS: feed.url };
    await publishSnapshots(withFeed);
    nodes.push(await startApi(withFeed), await startApi(withFeed));
    refresher = spawnService('services/refresher/main.ts', withFeed);
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

  async function admin(...args: string[]): Promise<{ code: number; out: string }> {
    return adminAt(capPrefix, ...args);
  }
  async function adminAt(keyPrefix: string, ...args: string[]): Promise<{ code: number; out: string }> {
    const entry = 'services/admin/cli.ts';
    try {
      const { stdout } = await run(process.execPath, [entry, 'correction', ...args], {
        env: serviceEnv(entry, { ...env, CAPABILITY_KEY_PREFIX: keyPrefix }),
      });
      return { code: 0, out: stdout };
    } catch (err) {
      const e = err as { code: number; stderr: string };
      return { code: e.code, out: e.stderr };
    }
  }
  async function scored(node: ApiNode): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, apiKey, { subject: SUBJECT });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }
  const tor = (r: ScoreResponse) => r.components!.find((c) => c.component === 'ip_tor_exit')!;
  const onBoth = <T>(fn: (n: ApiNode) => Promise<T>) => Promise.all(nodes.map(fn));
  const torVersion = async (n: ApiNode) =>
    HealthResponse.parse(await (await fetch(`${n.url}/v1/health`)).json()).capabilities.ip_tor_exit!.version;
  const correction = ['--cidr', `${SUBJECT.ip_address}/32`, '--set', 'not_tor', '--operator', 'it-ops'];

  it('refuses a malformed or too wide range, and a missing reason, changing nothing', async () => {
    const wide = await admin(
      'add',
      '--cidr',
      '0.0.0.0/0',
      '--set',
      'not_vpn',
      '--reason',
      'r',
      '--operator',
      'o',
    );
    expect(wide.code).toBe(2);
    expect(wide.out).toContain('wider than /16');
    const loose = await admin(
      'add',
      '--cidr',
      '81.2.69/24',
      '--set',
      'not_vpn',
      '--reason',
      'r',
      '--operator',
      'o',
    );
    expect(loose.out).toContain('not a dotted-quad IPv4 or an IPv6 address');
    // All of IPv4 in its IPv4-mapped form is as wide as 0.0.0.0/0, and NAT64 is refused.
    const mappedAll = await admin(
      'add',
      '--cidr',
      '::ffff:0.0.0.0/96',
      '--set',
      'not_vpn',
      '--reason',
      'r',
      '--operator',
      'o',
    );
    expect(mappedAll.code).toBe(2);
    expect(mappedAll.out).toContain('0.0.0.0/0 is wider than /16');
    const nat64 = await admin(
      'add',
      '--cidr',
      '64:ff9b::5102:4500/120',
      '--set',
      'not_vpn',
      '--reason',
      'r',
      '--operator',
      'o',
    );
    expect(nat64.code).toBe(2);
    expect(nat64.out).toContain('name the IPv4 range instead (here 81.2.69.0/24)');
    const noReason = await admin('add', ...correction);
    expect(noReason.out).toContain('missing --reason');
    const absent = await admin('remove', ...correction, '--reason', 'r');
    expect(absent.out).toContain('no not_tor correction on 81.2.69.142/32');
    expect(JSON.parse((await admin('list')).out)).toEqual({ corrections: [], history: [] });
  });

  it('holds at most 1,000 corrections', async () => {
    // A prefix of its own, which no node reads: a full set made directly, then one more by the CLI.
    const r = redis();
    const full = new CorrectionStore(r, `${capPrefix}-full`);
    try {
      const fields = Array.from({ length: MAX_CORRECTIONS }, (_, i) => [`AS${64512 + i}|vpn`, '{}']).flat();
      await r.hset(full.key, ...fields);
      const refused = await adminAt(`${capPrefix}-full`, 'add', ...correction, '--reason', 'one too many');
      expect(refused.code).toBe(2);
      expect(refused.out).toContain('at most 1000 corrections; remove one first');
      expect(await r.hlen(full.key)).toBe(MAX_CORRECTIONS);
      expect(await r.exists(full.logKey)).toBe(0);
    } finally {
      await unlinkPrefix(r, `${capPrefix}-full`);
      r.disconnect();
    }
  });

  it('changes the answer on both nodes within one poll, survives a feed refresh, and is removed', async () => {
    for (const r of await onBoth(scored))
      expect(tor(r)).toMatchObject({ verdict: 'adverse', detail: 'IP_TOR_EXIT' });

    const added = await admin('add', ...correction, '--reason', 'our office NAT, not a relay');
    expect(added.code, added.out).toBe(0);
    expect(JSON.parse(added.out).added).toMatchObject({
      target: '81.2.69.142/32',
      flag: 'tor',
      value: false,
    });
    await waitFor('both nodes to serve the correction', async () =>
      (await onBoth(scored)).every((r) => tor(r).detail === 'IP_OPERATOR_CORRECTED'),
    );
    const corrected = await scored(nodes[1]!);
    expect(tor(corrected).verdict).toBe('clean');
    expect(corrected.subject?.ip_address).toMatchObject({ tor: false });
    // Explain says the flag was corrected; who, when and why are in the record, never in an answer.
    const explain = await waitFor('the explanation of the corrected score', async () => {
      const res = await fetch(`${nodes[1]!.url}/v1/explain/${corrected.score_id}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      return res.status === 200
        ? ((await res.json()) as { evidence: { components: unknown[]; corrections?: unknown[] } })
        : undefined;
    });
    expect(explain.evidence.components).toContainEqual(
      expect.objectContaining({ component: 'ip_tor_exit', detail: 'IP_OPERATOR_CORRECTED' }),
    );
    expect(explain.evidence.corrections).toEqual([{ component: 'ip_tor_exit', flag: 'tor', value: false }]);
    expect(JSON.stringify([corrected, explain])).not.toMatch(/office NAT|it-ops|81\.2\.69\.142\/32/);
    const listed = JSON.parse((await admin('list')).out);
    expect(listed.history[0]).toMatchObject({ action: 'add', operator: 'it-ops', correction: 'not_tor' });

    // A refresh that publishes a new Tor snapshot (the feed changed) keeps the correction.
    const before = await torVersion(nodes[0]!);
    feed.reply.body = feedOf([...EXITS, '185.220.101.5']);
    await queue.add(capabilityJobName('ip_tor_exit'), {});
    await waitFor('both nodes to load the refreshed Tor snapshot', async () =>
      (await onBoth(torVersion)).every((v) => v !== undefined && v !== before),
    );
    for (const r of await onBoth(scored)) expect(tor(r).detail).toBe('IP_OPERATOR_CORRECTED');

    const removed = await admin('remove', ...correction, '--reason', 'verified a relay after all');
    expect(removed.code, removed.out).toBe(0);
    await waitFor('both nodes to answer from the list again', async () =>
      (await onBoth(scored)).every((r) => tor(r).detail === 'IP_TOR_EXIT'),
    );
    const after = JSON.parse((await admin('list')).out);
    expect(after.corrections).toEqual([]);
    expect(after.history.map((h: { action: string }) => h.action)).toEqual(['remove', 'add']);
  });

  it('applies a range written in its IPv4-mapped form to the IPv4 addresses it maps', async () => {
    const mapped = ['--cidr', '::ffff:81.2.69.0/120', '--set', 'not_tor', '--operator', 'it-ops'];
    const added = await admin('add', ...mapped, '--reason', 'our office range, logged by a dual-stack proxy');
    expect(added.code, added.out).toBe(0);
    // Stored as the IPv4 range it maps, which is how the scorer reads every mapped address.
    expect(JSON.parse(added.out).added).toMatchObject({ target: '81.2.69.0/24', flag: 'tor', value: false });
    await waitFor('both nodes to serve the mapped correction', async () =>
      (await onBoth(scored)).every((r) => tor(r).detail === 'IP_OPERATOR_CORRECTED'),
    );
    expect(JSON.parse((await admin('list')).out).not_applied).toBeUndefined();
    // Removed by the same text: it names the same IPv4 range.
    const removed = await admin('remove', ...mapped, '--reason', 'done');
    expect(removed.code, removed.out).toBe(0);
    expect(JSON.parse(removed.out).removed).toMatchObject({ target: '81.2.69.0/24' });
    await waitFor('both nodes to answer from the list again', async () =>
      (await onBoth(scored)).every((r) => tor(r).detail === 'IP_TOR_EXIT'),
    );
  });
});
