/**
 * The network-type rule over the whole AS table of the installed `@ip-location-db/asn`: panels of
 * real networks of each class get their class, and the share of routed IPv4 space whose type is
 * unknown stays under the bound the issue set (5 %). Counts per type are printed for review.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { classifyAs, classifyAsWithOperator, type AsType } from './as-type.ts';
import type { IpNetworks } from './ip-networks.ts';
import { loadResolutionData } from './resolution-data.ts';
import { routedV4, type RoutedV4 } from './routed-space.ts';

let networks: IpNetworks;
let routed: RoutedV4;
beforeAll(() => {
  networks = loadResolutionData().networks;
  routed = routedV4(networks.asnV4);
});

/** Real networks by class: [asn, what it is]. Every ASN must be in the table. */
const PANELS: Record<Exclude<AsType, 'unknown'>, [number, string][]> = {
  hosting: [
    [9370, 'SAKURA Internet'],
    [9371, 'SAKURA Internet'],
    [7684, 'SAKURA Internet'],
    [48337, 'Linode'],
    [63949, 'Akamai / Linode'],
    [24940, 'Hetzner'],
    [16276, 'OVH'],
    [14061, 'DigitalOcean'],
    [20473, 'Vultr (Choopa)'],
    [51167, 'Contabo'],
    [40021, 'Contabo US'],
    [20940, 'Akamai'],
    [16625, 'Akamai'],
    [13335, 'Cloudflare'],
    [54113, 'Fastly'],
    [37963, 'Alibaba Cloud'],
    [45102, 'Alibaba Cloud'],
    [45090, 'Tencent Cloud'],
    [132203, 'Tencent Cloud'],
    [31898, 'Oracle Cloud'],
    [54253, 'Oracle'],
    [36351, 'IBM Cloud'],
    [60781, 'Leaseweb NL'],
    [395954, 'Leaseweb US'],
    [9009, 'M247'],
    [16247, 'M247 UK'],
    [47583, 'Hostinger'],
    [36007, 'Kamatera'],
    [210329, 'Kamatera'],
    [12876, 'Scaleway'],
    [29447, 'Scaleway'],
    [202053, 'UpCloud'],
    [8560, 'IONOS'],
    [54290, 'HostPapa'],
    [53667, 'BuyVM (FranTech)'],
    [40676, 'Psychz'],
    [8100, 'QuadraNet'],
    [21859, 'Zenlayer'],
    [60068, 'Datacamp / CDN77'],
    [212238, 'Datacamp / CDN77'],
    [199524, 'G-Core Labs'],
    [202422, 'G-Core Labs'],
    [49505, 'Selectel'],
    [50340, 'Selectel'],
    [9123, 'Timeweb'],
    [210644, 'Aeza'],
    [16509, 'AWS'],
    [14618, 'AWS'],
    [15169, 'Google'],
    [396982, 'Google Cloud'],
    [8075, 'Microsoft Azure'],
    [19994, 'Rackspace'],
    [62240, 'Clouvider'],
    [137718, 'Volcano Engine'],
    [33425, 'CoreWeave'],
  ],
  isp: [
    [17676, 'SoftBank'],
    [4725, 'SoftBank'],
    [4134, 'Chinanet'],
    [8402, 'Beeline (Vimpelcom)'],
    [3216, 'Beeline (Vimpelcom)'],
    [45899, 'VNPT'],
    [4826, 'Vocus'],
    [9443, 'Vocus'],
    [7922, 'Comcast'],
    [3320, 'Deutsche Telekom'],
    [3215, 'Orange'],
    [4766, 'Korea Telecom'],
    [12389, 'Rostelecom'],
    [15557, 'SFR'],
    [8151, 'Telmex'],
    [17858, 'LG Uplus'],
    [9829, 'BSNL'],
    [8452, 'Telecom Egypt'],
    [6713, 'Maroc Telecom'],
    [2856, 'BT'],
    [5089, 'Virgin Media'],
    [14593, 'Starlink'],
  ],
  mobile: [
    [29465, 'MTN Nigeria'],
    [36974, 'MTN Cote d Ivoire'],
    [30986, 'MTN Ghana'],
    [21928, 'T-Mobile US'],
    [9808, 'China Mobile'],
    [55836, 'Reliance Jio'],
    [12714, 'MegaFon'],
    [16345, 'Beeline mobile'],
    [26611, 'Claro Colombia'],
  ],
  education: [
    [4538, 'CERNET'],
    [680, 'DFN'],
    [1103, 'SURF'],
    [786, 'Jisc'],
    [2907, 'SINET'],
    [137, 'GARR'],
    [2200, 'RENATER'],
    [7377, 'UC San Diego'],
    [3, 'MIT'],
  ],
  government: [
    [749, 'US DoD'],
    [203665, 'UK MoD'],
    [37937, 'China eGovNet'],
    [4155, 'USDA'],
    [270, 'NASA'],
    [1540, 'US Army (USAISC)'],
    [42848, 'European Commission'],
  ],
  business: [
    [714, 'Apple'],
    [521, 'Ford'],
    [31399, 'Mercedes-Benz'],
    [10794, 'Bank of America'],
    [4249, 'Eli Lilly'],
    [6253, 'Prudential'],
  ],
};

describe('the network-type rule over the installed AS table', () => {
  for (const [type, panel] of Object.entries(PANELS)) {
    it(`classifies the ${type} panel as ${type}`, () => {
      const wrong = panel
        .map(([asn, what]) => ({ asn, what, name: networks.asNames.get(asn) }))
        .filter((p) => p.name === undefined || classifyAs(p.asn, p.name) !== type)
        .map((p) => `AS${p.asn} ${p.what} (${p.name ?? 'not in the table'}): ${classifyAs(p.asn, p.name)}`);
      expect(wrong).toEqual([]);
    });
  }

  it('names the operator of the hosting networks it knows', () => {
    expect(classifyAsWithOperator(48337, networks.asNames.get(48337)).operator).toBe('Akamai, Linode');
    expect(classifyAsWithOperator(9370, networks.asNames.get(9370)).operator).toBe('SAKURA Internet');
    expect(classifyAsWithOperator(210329, networks.asNames.get(210329)).operator).toBe('Kamatera');
  });

  it('leaves at most 5 % of routed IPv4 space of unknown type, and prints the counts per type', () => {
    const ases = new Map<AsType, number>();
    const space = new Map<AsType, number>();
    for (const [asn, name] of networks.asNames) {
      const type = classifyAs(asn, name);
      ases.set(type, (ases.get(type) ?? 0) + 1);
      space.set(type, (space.get(type) ?? 0) + (routed.perAsn.get(asn) ?? 0));
    }
    const share = (type: AsType) => (space.get(type) ?? 0) / routed.total;
    const v6 = unknownV6Share(networks);
    console.log(
      [
        `network types over ${networks.asNames.size} ASes, ${(routed.total / 1e6).toFixed(0)} M routed IPv4 addresses:`,
        ...[...ases].map(
          ([type, n]) =>
            `  ${type.padEnd(10)} ${String(n).padStart(6)} ASes  ${(100 * share(type)).toFixed(2)} % of IPv4`,
        ),
        `  IPv6: ${(100 * v6).toFixed(2)} % of routed /48s of unknown type`,
      ].join('\n'),
    );
    expect(share('unknown')).toBeLessThanOrEqual(0.05);
    // IPv6 in /48s: a long tail of small ASes with /29 allocations (26 % on the 2026-06 table),
    // which the curated list, chosen by IPv4 space, barely touches. A guard against collapse only.
    expect(v6).toBeLessThan(0.3);
  });
});

/** Share of routed IPv6 /48s whose AS type is unknown. */
function unknownV6Share(n: IpNetworks): number {
  const { startHi, endHi } = n.asnV6.bounds;
  let total = 0;
  let unknown = 0;
  for (let i = 0; i < startHi.length; i++) {
    // /48 units from the high 64 bits (a /48 is 2^16 of them); rows narrower than a /48 count 1.
    const size = Math.max(1, Number((endHi[i]! >> 16n) - (startHi[i]! >> 16n)) + 1);
    total += size;
    const asn = n.asnV6.asn[i]!;
    if (classifyAs(asn, n.asNames.get(asn)) === 'unknown') unknown += size;
  }
  return unknown / total;
}
