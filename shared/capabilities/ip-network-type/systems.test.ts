/**
 * Whole systems on the data-centre list (X4BNet's `datacenter/ASN.txt`): an address routed from a
 * listed system is hosting where the system's own type is hosting or unknown, never where it is a
 * university, a bank or an access network the list names by mistake or out of date.
 */
import { describe, expect, it } from 'vitest';
import type { IpFacts } from '../../resolution/ip.ts';
import { addressKeyOf } from '../../resolution/ip.ts';
import { buildRangeSet } from '../../resolution/range-set.ts';
import { FEED_LIMITS } from '../registry.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { ipNetworkType } from './index.ts';

const hosting = buildRangeSet(
  parseRangeFeed(Buffer.from('AS37170 # UNILAG\nAS20473 # Vultr\n'), undefined, FEED_LIMITS.hosting!),
);
const ip = (over: Partial<IpFacts>): IpFacts => ({
  address: '196.45.48.1',
  version: 4,
  bogon: false,
  range: 'unicast',
  hosting: false,
  vpn: false,
  proxy: false,
  tor: false,
  ...over,
});
const facts = (i: IpFacts) =>
  ipNetworkType.ipFacts!(i, addressKeyOf(i.address), { networks: undefined as never, hosting });

describe('a data-centre list of whole systems', () => {
  it('makes an untyped or hosting system hosting, named by its registered name', () => {
    expect(facts(ip({ asn: 'AS20473', as_name: 'AS-CHOOPA' }))).toMatchObject({
      hosting: true,
      as_type: 'hosting',
      services: { ip_network_type: 'AS-CHOOPA' },
    });
    expect(facts(ip({ asn: 'AS20473', as_type: 'hosting', hosting: true }))).toMatchObject({ hosting: true });
  });

  it('leaves a system of another type as it is', () => {
    expect(facts(ip({ asn: 'AS37170', as_type: 'education' }))).toEqual({ hosting: false });
    expect(facts(ip({ asn: 'AS3320', as_type: 'isp' }))).toEqual({ hosting: false });
  });
});
