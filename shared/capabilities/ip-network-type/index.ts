import { buildIpNetworks, NETWORK_FILES, type IpNetworks } from '../../resolution/ip-networks.ts';
import { networkArrays, networkHeader, networksFrom } from '../../resolution/resolution-cache.ts';
import { correctedAway, IP_OPERATOR_CORRECTED } from '../corrections.ts';
import { defineCapability, DAY, HOUR } from '../definition.ts';
import {
  ALLOCATION_FORMATS,
  ALLOCATION_LIMITS,
  ASN_TABLES,
  COUNTRY_TABLES,
  HOSTING_FORMATS,
  HOSTING_LIMITS,
} from './formats.ts';
import { asnFilesOf, asRangeFeedText } from '../feeds/importers/mmdb.ts';
import { IP_PRIVACY_RELAY } from '../ip-not-anonymised.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { dataPackages } from '../../resolution/data-packages.ts';
import {
  buildRangeSet,
  rangeAt,
  rangeSetArrays,
  rangeSetFrom,
  systemAt,
  type RangeSet,
} from '../../resolution/range-set.ts';
import { encode, file, length, parsing } from '../snapshot-format.ts';

/** The five Regional Internet Registries' daily delegated-extended statistics. */
const RIR_STATISTICS = [
  'https://ftp.afrinic.net/pub/stats/afrinic/delegated-afrinic-extended-latest',
  'https://ftp.apnic.net/stats/apnic/delegated-apnic-extended-latest',
  'https://ftp.arin.net/pub/stats/arin/delegated-arin-extended-latest',
  'https://ftp.lacnic.net/pub/stats/lacnic/delegated-lacnic-extended-latest',
  'https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest',
];

/** The kind of network an address sits on: origin AS, registry country and hosting ranges. */
export const ipNetworkType = defineCapability({
  key: 'ip_network_type',
  description: 'Kind of network the address sits on: access, hosting, or reserved space.',
  codes: {
    IP_BOGON:
      'The address is in reserved or special-purpose space and cannot be a real client on the internet.',
    IP_HOSTING: 'The address belongs to a hosting or data-centre network, not an access network.',
    IP_ACCESS_NETWORK: 'The address belongs to an access (residential, mobile or business) network.',
    IP_NETWORK_UNKNOWN: 'The network of the address is not classified.',
    ...IP_PRIVACY_RELAY,
    ...IP_OPERATOR_CORRECTED,
  },
  tier: 'verify',
  kind: 'snapshot',
  // The routing and allocation tables: RIRs allocate and transfer space every day, so an old table
  // calls new space unallocated. 120 days: the upstream publishes monthly or more often, so this is
  // several missed releases, while the share of routed space allocated in that time is still small.
  sources: {
    asn: {
      env: 'FEED_ASN',
      description:
        "Origin AS per routed range: IPtoASN's ip2asn files, or the @ip-location-db/asn layout, or an ASN .mmdb",
      // The seed's package.json dates it by its version; an import writes an `as-of` file (feeds/as-of.ts).
      layout: ['asn-ipv4-num.csv', 'asn-ipv6-num.csv', 'package.json'],
      seed: { path: () => dataPackages().asn.dir },
      // Rebuilt from the global routing table every hour; public domain (PDDL 1.0).
      publishers: ['https://iptoasn.com/data/ip2asn-v4.tsv.gz', 'https://iptoasn.com/data/ip2asn-v6.tsv.gz'],
      tables: ASN_TABLES,
      refreshEveryS: DAY,
      minRecords: 100_000,
      maxDataAgeS: 120 * DAY,
    },
    ipCountry: {
      env: 'FEED_IP_COUNTRY',
      description:
        "Registry country per allocated range: the RIRs' delegated statistics, or the @ip-location-db/geo-whois-asn-country layout",
      layout: ['geo-whois-asn-country-ipv4-num.csv', 'geo-whois-asn-country-ipv6-num.csv', 'package.json'],
      seed: { path: () => dataPackages().ipCountry.dir },
      // The country each block is registered in, from the same daily files as the allocations.
      publishers: RIR_STATISTICS,
      tables: COUNTRY_TABLES,
      refreshEveryS: DAY,
      minRecords: 100_000,
      maxDataAgeS: 120 * DAY,
    },
    hosting: {
      env: 'FEED_HOSTING_RANGES',
      description: 'Hosting and data-centre ranges the AS classification misses: address or CIDR per line',
      layout: 'file',
      seed: { file: 'hosting-ranges.txt' },
      // The large clouds' own range files, and X4BNet's lists_vpn data-centre networks (MIT).
      publishers: [
        'https://ip-ranges.amazonaws.com/ip-ranges.json',
        'https://www.gstatic.com/ipranges/cloud.json',
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/datacenter/ASN.txt',
      ],
      formats: HOSTING_FORMATS,
      limits: HOSTING_LIMITS,
      refreshEveryS: DAY,
      // The data-centre list alone names some 900 systems; the cloud files hold thousands of prefixes.
      minRecords: 500,
      maxDataAgeS: 120 * DAY,
    },
    allocatedRanges: {
      env: 'FEED_ALLOCATED_RANGES',
      description:
        "The registries' allocated and assigned space, one CIDR per line (the five RIRs' delegated statistics)",
      layout: 'file',
      // Not checked in: the registry tables above already say what was allocated by their date.
      seed: { file: 'allocated-ranges.txt' },
      publishers: RIR_STATISTICS,
      formats: ALLOCATION_FORMATS,
      limits: ALLOCATION_LIMITS,
      refreshEveryS: DAY,
      // The smallest registry alone has several thousand address records.
      minRecords: 1000,
      maxDataAgeS: 120 * DAY,
      optional: true,
    },
  },
  subject: 'ip',
  freshnessS: 7 * 24 * HOUR,
  whenMissing: 'unavailable',
  format:
    'FRSC binary: ASN and country range tables (Uint32/BigUint64 bounds, values per row), AS names in ' +
    'the header, and the hosting range set.',
  snapshot: {
    build: (files) => {
      // The origin-AS tables: the routing table's CSV files, or an ASN or ISP .mmdb walked into them.
      const asn = parsing(
        'asn',
        () => asnFilesOf(files.asn),
        () => 1,
      );
      const networks = parsing(
        'asn',
        () =>
          buildIpNetworks({
            asnV4: file({ asn }, 'asn', NETWORK_FILES.asnV4),
            asnV6: file({ asn }, 'asn', NETWORK_FILES.asnV6),
            countryV4: file(files, 'ipCountry', NETWORK_FILES.countryV4),
            countryV6: file(files, 'ipCountry', NETWORK_FILES.countryV6),
          }),
        (n) => n.asnV4.asn.length * n.countryV4.country.length,
      );
      const hostingEntries = parsing(
        'hosting',
        () =>
          parseRangeFeed(
            asRangeFeedText('hosting', file(files, 'hosting'), HOSTING_LIMITS),
            undefined,
            HOSTING_LIMITS,
          ),
        length,
      );
      const hosting = buildRangeSet(hostingEntries);
      const allocationEntries = files.allocatedRanges
        ? parsing(
            'allocatedRanges',
            () => parseRangeFeed(file(files, 'allocatedRanges'), undefined, ALLOCATION_LIMITS),
            length,
          )
        : [];
      return {
        payload: encode(networkHeader(networks), {
          ...networkArrays(networks),
          ...rangeSetArrays(hosting, 'hosting'),
          ...(files.allocatedRanges ? rangeSetArrays(buildRangeSet(allocationEntries), 'allocated') : {}),
        }),
        // The shrink check of a refresh compares this total, which the routing table dominates.
        entries:
          networks.asnV4.asn.length +
          networks.asnV6.asn.length +
          hostingEntries.length +
          allocationEntries.length,
      };
    },
    decode: (decoded, what): { networks: IpNetworks; hosting: RangeSet; allocated?: RangeSet } => ({
      networks: networksFrom(decoded, what),
      hosting: rangeSetFrom(decoded, 'hosting', what),
      ...(decoded.arrays.has('allocated.v4.kind')
        ? { allocated: rangeSetFrom(decoded, 'allocated', what) }
        : {}),
    }),
  },
  // An AS the classification calls hosting (resolution/ip.ts), or a listed hosting range or
  // system (a data-centre list names whole systems, matched against this snapshot's own routing
  // table). A list never overrides the network's own type: it counts where the AS is hosting or of unknown
  // type (and then the AS is read as hosting), not in a university's, a city's or an access
  // network's space. So `as_type` and `hosting` always agree. The range's own name is what
  // explain shows.
  flags: ['hosting'],
  ipFacts: (ip, key, { hosting, allocated }) => {
    const inRange = rangeAt(hosting, key);
    // A listed range, else the whole system the address is routed from, if the list names it.
    const asn = ip.asn === undefined ? undefined : Number(ip.asn.slice(2));
    const { kind, service } =
      inRange.kind !== 0 || asn === undefined
        ? inRange
        : { ...systemAt(hosting, asn), ...(ip.as_name !== undefined ? { service: ip.as_name } : {}) };
    const listed = kind !== 0 && (ip.as_type === undefined || ip.as_type === 'hosting');
    const isHosting = ip.hosting || listed;
    // Who hosts it: the list's own name for the range, else the operator the AS classification knows.
    const hostedBy = (listed ? service : undefined) ?? (isHosting ? ip.network_operator : undefined);
    // Space the routing and country tables do not know but a registry's statistics allocate
    // (newer than the tables): an unknown network, not an unallocated bogon.
    const allocatedNow =
      ip.range === 'unallocated' && allocated !== undefined && rangeAt(allocated, key).kind !== 0;
    return {
      ...(allocatedNow ? { bogon: false, range: 'unicast' } : {}),
      hosting: isHosting,
      ...(isHosting ? { as_type: 'hosting' } : {}),
      ...(hostedBy !== undefined ? { services: { ip_network_type: hostedBy } } : {}),
    };
  },
  replay: {
    verdicts: {
      IP_BOGON: 'adverse',
      IP_HOSTING: 'elevated',
      IP_ACCESS_NETWORK: 'clean',
      IP_NETWORK_UNKNOWN: 'neutral',
      IP_PRIVACY_RELAY: 'neutral',
      IP_OPERATOR_CORRECTED: 'clean',
    },
  },
  finding: ({ ip }) => {
    if (!ip) return undefined;
    if (ip.bogon) return { verdict: 'adverse', detail: 'IP_BOGON' };
    // A privacy relay egresses from CDN networks; its users are ordinary customers.
    if (ip.relay) return { verdict: 'neutral', detail: 'IP_PRIVACY_RELAY' };
    if (ip.hosting) return { verdict: 'elevated', detail: 'IP_HOSTING' };
    if (correctedAway(ip, 'hosting')) return { verdict: 'clean', detail: 'IP_OPERATOR_CORRECTED' };
    return ip.as_type
      ? { verdict: 'clean', detail: 'IP_ACCESS_NETWORK' }
      : { verdict: 'neutral', detail: 'IP_NETWORK_UNKNOWN' };
  },
});
