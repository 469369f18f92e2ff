import { buildIpNetworks, NETWORK_FILES, type IpNetworks } from '../../resolution/ip-networks.ts';
import { networkArrays, networkHeader, networksFrom } from '../../resolution/resolution-cache.ts';
import { defineCapability, DAY, HOUR } from '../definition.ts';
import { FEED_LIMITS } from '../feeds/importers/imported-feed.ts';
import { asnFilesOf, asRangeFeedText } from '../feeds/importers/mmdb.ts';
import { IP_PRIVACY_RELAY } from '../ip-not-anonymised.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { buildRangeSet, rangeSetArrays, rangeSetFrom, type RangeSet } from '../range-set.ts';
import { encode, file, length, parsing } from '../snapshot-format.ts';

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
  },
  tier: 'verify',
  kind: 'snapshot',
  feeds: ['asn', 'ipCountry', 'hosting'],
  subject: 'ip',
  refreshEveryS: 24 * HOUR,
  freshnessS: 7 * 24 * HOUR,
  // The routing and allocation tables (oldest of the ASN, country and hosting feeds): RIRs allocate
  // and transfer space every day, so an old table calls new space unallocated. 120 days: the
  // upstream publishes monthly or more often, so this is several missed releases, while the share
  // of routed space allocated in that time is still small.
  maxDataAgeS: 120 * DAY,
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
          parseRangeFeed(asRangeFeedText('hosting', file(files, 'hosting')), undefined, FEED_LIMITS.hosting),
        length,
      );
      const hosting = buildRangeSet(hostingEntries);
      return {
        payload: encode(networkHeader(networks), {
          ...networkArrays(networks),
          ...rangeSetArrays(hosting, 'hosting'),
        }),
        // The shrink check of a refresh compares this total, which the routing table dominates.
        entries: networks.asnV4.asn.length + networks.asnV6.asn.length + hostingEntries.length,
      };
    },
    decode: (decoded, what): { networks: IpNetworks; hosting: RangeSet } => ({
      networks: networksFrom(decoded, what),
      hosting: rangeSetFrom(decoded, 'hosting', what),
    }),
  },
  finding: ({ ip }) => {
    if (!ip) return undefined;
    if (ip.bogon) return { verdict: 'adverse', detail: 'IP_BOGON' };
    // A privacy relay egresses from CDN networks; its users are ordinary customers.
    if (ip.relay) return { verdict: 'neutral', detail: 'IP_PRIVACY_RELAY' };
    if (ip.hosting) return { verdict: 'elevated', detail: 'IP_HOSTING' };
    return ip.as_type
      ? { verdict: 'clean', detail: 'IP_ACCESS_NETWORK' }
      : { verdict: 'neutral', detail: 'IP_NETWORK_UNKNOWN' };
  },
});
