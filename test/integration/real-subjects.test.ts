import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNodeWithSnapshots } from '../helpers/in-process.ts';

const BANDS = ['minimal', 'low', 'medium', 'high', 'critical'];
const atLeast = (band: string, floor: string) => BANDS.indexOf(band) >= BANDS.indexOf(floor);

/**
 * Real subjects of each class through the API, with the checked-in data a deployment starts
 * from: what a bureau caller sees for Tor exits, VPN servers, VPS hosts and large access
 * networks. Each class has several members, so a fix for one address does not pass it.
 */
describe('real subjects of each class, scored through the API', () => {
  let node: Awaited<ReturnType<typeof startNodeWithSnapshots>>;
  let apiKey: string;

  beforeAll(async () => {
    node = await startNodeWithSnapshots('real-subjects');
    ({ apiKey } = await orgWithKey('bureau', { rateRps: 10_000, credits: 1_000_000 }));
  });
  afterAll(() => node?.stop());

  async function scored(ip: string): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, apiKey, { subject: { ip_address: ip } });
    expect(res.status).toBe(200);
    return (await res.json()) as ScoreResponse;
  }

  it.each(['195.176.3.23', '185.220.101.7', '192.42.116.16', '109.70.100.1', '171.25.193.20'])(
    'Tor exit %s: tor, high or above',
    async (ip) => {
      const s = await scored(ip);
      expect(s.subject?.ip_address?.tor).toBe(true);
      expect(atLeast(s.band, 'high'), s.band).toBe(true);
    },
  );

  it.each(['23.144.160.86', '31.171.155.143', '2.58.241.69', '5.182.103.10', '2.58.36.1'])(
    'VPN server %s: vpn',
    async (ip) => {
      expect((await scored(ip)).subject?.ip_address?.vpn).toBe(true);
    },
  );

  it.each(['27.133.128.1', '49.212.0.1', '172.104.1.1', '88.198.0.1', '139.59.0.1', '3.5.140.1'])(
    'VPS or cloud %s: hosting, never called not anonymised',
    async (ip) => {
      const s = await scored(ip);
      expect(s.subject?.ip_address?.hosting).toBe(true);
      expect(s.benign_exclusions ?? []).not.toContain('IP_NOT_ANONYMISED');
    },
  );

  it.each([
    ['126.0.0.1', 'SoftBank'],
    ['1.112.0.1', 'SoftBank'],
    ['1.48.0.1', 'Chinanet'],
    ['2.95.0.1', 'Vimpelcom'],
    ['41.206.0.1', 'MTN Nigeria'],
    ['14.160.0.1', 'VNPT'],
  ])('access network %s (%s): isp or mobile, at most low', async (ip) => {
    const s = await scored(ip);
    expect(['isp', 'mobile']).toContain(s.subject?.ip_address?.as_type);
    expect(atLeast('low', s.band), s.band).toBe(true);
  });
});
