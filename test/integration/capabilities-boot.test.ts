/**
 * API nodes only read snapshots. A node started against a Redis with no snapshot (a fresh
 * capability prefix) builds none: it is ready, answers every score with each capability missing
 * as its registry entry says (degraded or unavailable, never a 5xx), health says why, and it
 * writes no key under the prefix. Once the refresher's one-shot publishes the snapshots, the
 * announcement brings them in (the poll is an hour away). docs/capabilities.md "First snapshots".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../shared/capabilities/registry.ts';
import { HealthResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import { waitFor } from '../../infra/harness/processes.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';

// A number and an address no seed feed lists, so only the capabilities' presence changes scores.
const SUBJECT = { phone_number: '+447911123456', ip_address: '81.2.69.142' };

describe('a node with no published snapshots', () => {
  // A prefix of its own under frs:cap, where the services' Redis users may read and write snapshots.
  const prefix = `frs:cap:caps-boot-${process.pid}-${Date.now()}`;
  const env = { CAPABILITY_KEY_PREFIX: prefix, CAPABILITY_POLL_S: '3600' };
  let node: InProcessNode;
  let apiKey: string;

  beforeAll(async () => {
    node = await startNode(env);
    ({ apiKey } = await orgWithKey('bureau', { rateRps: 10_000, credits: 1_000_000 }));
  });

  afterAll(async () => {
    await node?.stop();
    const r = redis();
    await unlinkPrefix(r, prefix);
    r.disconnect();
  });

  const health = async () => HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json());
  const keysUnderPrefix = async () => {
    const r = redis();
    try {
      return await r.keys(`${prefix}:*`);
    } finally {
      r.disconnect();
    }
  };

  it('is ready, builds nothing, answers degraded, and health says why', async () => {
    expect((await fetch(`${node.url}/readyz`)).status).toBe(200);
    const h = await health();
    expect(h.status).toBe('degraded');
    for (const def of CAPABILITIES) {
      expect(h.capabilities[def.name], def.name).toMatchObject({
        status: def.whenMissing,
        last_error: expect.stringMatching(/no snapshot published yet/),
      });
      expect(h.capabilities[def.name]!.version, def.name).toBeUndefined();
    }

    const res = await scoreCall(node.url, apiKey, { subject: SUBJECT });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ScoreResponse;
    const verdict = (name: string) => body.components!.find((c) => c.component === name)?.verdict;
    expect(verdict('ip_tor_exit')).toBe('unavailable');
    expect(verdict('ip_network_type')).toBe('unavailable');
    expect(body.degraded_sources).toEqual(
      expect.arrayContaining(['caller_id_integrity', 'ndc_range_risk', 'reputation_ledger']),
    );

    // The node wrote nothing under the prefix: no snapshot, no version, no status.
    expect(await keysUnderPrefix()).toEqual([]);
  });

  it('serves the snapshots once the refresher publishes them, through the announcement', async () => {
    const published = await publishSnapshots(env);
    expect(published.map((p) => p.capability).sort()).toEqual(CAPABILITIES.map((c) => c.name).sort());
    const versions = Object.fromEntries(
      published.map((p) => [p.capability, (p as { version?: string }).version]),
    );

    const h = await waitFor('the node to load every published snapshot', async () => {
      const current = await health();
      return current.status === 'ok' ? current : undefined;
    });
    for (const def of CAPABILITIES) {
      expect(h.capabilities[def.name], def.name).toMatchObject({ status: 'ok', version: versions[def.name] });
      expect(h.capabilities[def.name]!.last_error, def.name).toBeUndefined();
    }

    const body = (await (await scoreCall(node.url, apiKey, { subject: SUBJECT })).json()) as ScoreResponse;
    expect(body.degraded_sources).toEqual([]);
    expect(body.components!.find((c) => c.component === 'ip_tor_exit')?.verdict).toBe('clean');
  });

  it('with --stale, the one-shot rebuilds only what is past its freshness limit or will be within the hour', async () => {
    const r = redis();
    try {
      // Nothing is stale right after publishing: the one-shot builds nothing.
      expect(await publishSnapshots(env, { stale: true })).toEqual([]);
      // The ledger last confirmed 3 h ago (its limit is 2 h), as on a stack started hours before.
      const key = `${prefix}:status:{reputation_ledger}`;
      const status = JSON.parse((await r.get(key))!) as Record<string, unknown>;
      const hoursAgo = new Date(Date.now() - 3 * 3600_000).toISOString();
      // Tor exits last confirmed 5 h 30 min ago (limit 6 h): stale within the hour, rebuilt too.
      const torKey = `${prefix}:status:{ip_tor_exit}`;
      const torStatus = JSON.parse((await r.get(torKey))!) as Record<string, unknown>;
      const soon = new Date(Date.now() - 5.5 * 3600_000).toISOString();
      await r.set(key, JSON.stringify({ ...status, refreshed_at: hoursAgo }));
      await r.set(torKey, JSON.stringify({ ...torStatus, refreshed_at: soon }));
      expect(await publishSnapshots(env)).toEqual([]);
      const rebuilt = await publishSnapshots(env, { stale: true });
      expect(rebuilt.map((p) => p.capability).sort()).toEqual(['ip_tor_exit', 'reputation_ledger']);
      const after = JSON.parse((await r.get(key))!) as { refreshed_at: string };
      expect(Date.parse(after.refreshed_at)).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      r.disconnect();
    }
  });
});
