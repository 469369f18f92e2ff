/**
 * Tor-operator space through the API (docs/capabilities.md "Tor-operator space"): on the shipped
 * exit list, an address of an exit operator's network that the list does not name scores as
 * Tor-operator space, at least `medium`, and explain shows why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNodeWithSnapshots, type InProcessNode } from '../helpers/in-process.ts';

const BANDS = ['minimal', 'low', 'medium', 'high', 'critical'];

describe('an unlisted exit in its operator network', () => {
  let node: InProcessNode;
  let apiKey: string;

  beforeAll(async () => {
    node = await startNodeWithSnapshots('tor-operator-space-it');
    ({ apiKey } = await orgWithKey('assess', { rateRps: 10_000, credits: 1_000_000 }));
  });

  afterAll(async () => {
    await node?.stop();
  });

  async function scored(ip: string): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, apiKey, { subject: { ip_address: ip } });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }

  // Foundation for Applied Privacy's /24, and a /24 of Quintex's AS where the list names no exit.
  it.each(['109.70.100.50', '204.8.99.20'])(
    '%s is Tor-operator space, medium or above, in explain too',
    async (ip) => {
      const out = await scored(ip);
      expect(out.subject!.ip_address!.tor).toBe(false);
      const tor = out.components!.find((c) => c.component === 'ip_tor_exit')!;
      expect(tor).toMatchObject({ verdict: 'elevated', detail: 'IP_TOR_OPERATOR_NETWORK' });
      expect(tor.contribution).toBeGreaterThan(0);
      expect(BANDS.indexOf(out.band)).toBeGreaterThanOrEqual(BANDS.indexOf('medium'));
      expect(out.benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');
      const explain = await fetch(`${node.url}/v1/explain/${out.score_id}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(explain.status).toBe(200);
      const body = (await explain.json()) as {
        evidence: { components: { component: string; detail?: string }[] };
      };
      expect(body.evidence.components.find((c) => c.component === 'ip_tor_exit')?.detail).toBe(
        'IP_TOR_OPERATOR_NETWORK',
      );
    },
  );

  it('an access ISP subscriber is not: both lists vouch for it', async () => {
    const out = await scored('81.2.69.142');
    expect(out.components!.find((c) => c.component === 'ip_tor_exit')!.verdict).toBe('clean');
    expect(out.benign_exclusions).toContain('IP_NOT_ANONYMISED');
  });
});
