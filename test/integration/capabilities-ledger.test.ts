/**
 * The live reputation ledger behind its breaker, on a private redis-server the test freezes
 * (SIGSTOP) and thaws: scoring keeps answering 200 within the breaker's timeout, names
 * reputation_ledger in degraded_sources while it cannot answer, and recovers by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../shared/clients/redis.ts';
import { HealthResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { startApi, waitFor, type ApiNode } from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

// Four reports in infra/feeds/reputation.csv (an Ofcom drama number, never a subscriber).
const REPORTED = { phone_number: '+447700900123' };
const LEDGER_TIMEOUT_MS = 100;

describe('reputation ledger: a live lookup behind a breaker', () => {
  // A prefix of its own under frs:cap, where the services' Redis users may read and write snapshots.
  const prefix = `frs:cap:caps-ledger-${process.pid}`;
  let ledger: PrivateRedis;
  let node: ApiNode;
  let apiKey: string;

  beforeAll(async () => {
    ledger = await PrivateRedis.start();
    // The refresher's one-shot writes the ledger's first version; the node only reads it.
    await publishSnapshots({ CAPABILITY_KEY_PREFIX: prefix, LEDGER_REDIS_URL: ledger.url });
    node = await startApi({
      CAPABILITY_KEY_PREFIX: prefix,
      LEDGER_REDIS_URL: ledger.url,
      // Above what a loaded machine's pauses add to a healthy lookup, below the 250 ms command
      // timeout a frozen ledger would otherwise cost.
      LEDGER_TIMEOUT_MS: String(LEDGER_TIMEOUT_MS),
      // Long enough that the breaker is still open when health is read after the frozen burst.
      LEDGER_BREAKER_RESET_MS: '5000',
    });
    ({ apiKey } = await orgWithKey('bureau', { rateRps: 10_000, credits: 1_000_000 }));
  });

  afterAll(async () => {
    await node?.stop();
    await ledger?.destroy();
    const r = redis();
    await unlinkPrefix(r, prefix);
    r.disconnect();
  });

  async function scored(body: unknown = { subject: REPORTED }) {
    const res = await scoreCall(node.url, apiKey, body);
    expect(res.status).toBe(200);
    const r = (await res.json()) as ScoreResponse;
    return {
      r,
      ledger: r.components!.find((c) => c.component === 'reputation_ledger')!,
    };
  }
  const health = async () =>
    HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json()).capabilities.reputation_ledger!;

  it('answers from the ledger fed by the reputation feed, subjects kept only as digests', async () => {
    const { r, ledger: component } = await scored();
    expect(component).toMatchObject({ verdict: 'adverse', detail: 'REPUTATION_REPORTED' });
    expect(r.degraded_sources).toEqual([]);
    expect((await scored({ subject: { phone_number: '+447911123456' } })).ledger.verdict).toBe('no_match');
    // The ledger holds no subject in clear: one hash per version, fields are 32 hex digits.
    const l = createRedis(ledger.url);
    try {
      const keys = await l.keys('*');
      expect(keys).toEqual([`${prefix}:ledger:${(await health()).version}`]);
      const fields = await l.hkeys(keys[0]!);
      expect(fields.length).toBe(6);
      for (const f of fields) expect(f).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      l.disconnect();
    }
  });

  it('a frozen ledger: 200s with reputation_ledger unavailable within the breaker timeout, breaker opens; then recovers', async () => {
    ledger.pause();
    try {
      const during = [];
      for (let i = 0; i < 15; i++) during.push(await scored());
      for (const { r, ledger: component } of during) {
        expect(component).toMatchObject({
          verdict: 'unavailable',
          contribution: 0,
          detail: 'SOURCE_UNAVAILABLE',
        });
        expect(r.degraded_sources).toEqual(['reputation_ledger']);
      }
      // Measured by the node, so the test runner's own pauses do not count: the request waited
      // at most the breaker timeout, never the 250 ms command timeout.
      expect(Math.max(...during.map((d) => d.r.latency_ms!))).toBeLessThan(250);
      expect(await health()).toMatchObject({ status: 'unavailable', breaker: 'open' });
      const overall = HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json());
      expect(overall.status).toBe('degraded');
      const metrics = await (await fetch(`${node.url}/metrics`)).text();
      expect(metrics).toContain('frs_breaker_state{capability="reputation_ledger"} 2');
    } finally {
      ledger.resume();
    }
    await waitFor('the breaker to close again', async () => {
      const { r, ledger: component } = await scored();
      return component.verdict === 'adverse' && r.degraded_sources.length === 0;
    });
    expect(await health()).toMatchObject({ status: 'ok', breaker: 'closed' });
  });
});
