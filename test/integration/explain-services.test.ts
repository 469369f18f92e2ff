import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExplainResponse, type ScoreResponse } from '../../shared/contract/response.ts';
import { orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNodeWithSnapshots } from '../helpers/in-process.ts';

/** Which VPN provider or cloud a flag comes from: explain names the service the data name. */
describe('explain names the service behind a VPN or hosting flag', () => {
  let node: Awaited<ReturnType<typeof startNodeWithSnapshots>>;
  let apiKey: string;

  beforeAll(async () => {
    node = await startNodeWithSnapshots('explain-services');
    ({ apiKey } = await orgWithKey('assess', { rateRps: 10_000, credits: 1_000_000 }));
  });
  afterAll(() => node?.stop());

  async function explained(ip: string) {
    const res = await scoreCall(node.url, apiKey, { subject: { ip_address: ip } });
    expect(res.status).toBe(200);
    const scored = (await res.json()) as ScoreResponse;
    const explain = await fetch(`${node.url}/v1/explain/${scored.score_id}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(explain.status).toBe(200);
    return { scored, explain: ExplainResponse.parse(await explain.json()) };
  }

  it('a Proton VPN server: vpn in the resolution, the provider in explain, not in the score response', async () => {
    const { scored, explain } = await explained('2.58.241.69');
    expect(scored.subject?.ip_address?.vpn).toBe(true);
    expect(explain.evidence.services).toContainEqual({ component: 'ip_vpn_proxy', name: 'Proton VPN' });
    expect(JSON.stringify(scored)).not.toContain('Proton VPN');
  });

  it('a cloud address: hosting, with its operator', async () => {
    const { explain } = await explained('88.198.0.1');
    expect(explain.evidence.subject?.ip_address?.hosting).toBe(true);
    expect(explain.evidence.services).toContainEqual({
      component: 'ip_network_type',
      name: 'Hetzner Online GmbH',
    });
  });

  it('an access network names no service', async () => {
    const { explain } = await explained('86.128.0.1');
    expect(explain.evidence.services).toBeUndefined();
  });
});
