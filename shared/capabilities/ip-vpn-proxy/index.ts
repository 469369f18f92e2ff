import { correctedAway, IP_OPERATOR_CORRECTED } from '../corrections.ts';
import { defineCapability, DAY, HOUR } from '../definition.ts';
import type { ListFormat } from '../feeds/importers/format.ts';
import type { FeedLimits } from '../feeds/importers/imported-feed.ts';
import { importAsnList, importVpnServerList, VPN_SERVER_LISTS } from '../feeds/importers/network-lists.ts';
import { importPrivateRelayEgress } from '../feeds/importers/private-relay.ts';
import { asRangeFeedText } from '../feeds/importers/mmdb.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import {
  buildRangeSet,
  rangeAt,
  rangeSetArrays,
  rangeSetFrom,
  systemAt,
  type RangeSet,
} from '../../resolution/range-set.ts';
import { isHostingBrand } from '../../resolution/as-type.ts';
import type { IpFacts } from '../../resolution/ip.ts';
import { ipNetworkType } from '../ip-network-type/index.ts';
import { encode, file, length, parsing } from '../snapshot-format.ts';
import {
  IP_ANONYMISER_LIST_STALE,
  IP_NOT_ANONYMISED,
  IP_PRIVACY_RELAY,
  UNLISTED_VERDICTS,
  unlistedFinding,
} from '../ip-not-anonymised.ts';

/** Kinds of the range feed: 1 = vpn, 2 = proxy, 3 = relay (a privacy relay's egress, benign). */
export const VPN_PROXY_KINDS = ['vpn', 'proxy', 'relay'] as const;

const MB = 1024 * 1024;

/**
 * VPN servers and VPN providers' own networks: /16 and /29 are the widest today; a VPN provider
 * announcing more than a /12 or a /24 would be a carrier, not a VPN. Its size is set by the privacy
 * relays' egress ranges it may carry (some 300,000).
 */
const LIMITS: FeedLimits = {
  minPrefix: { v4: 12, v6: 24 },
  maxBytes: 96 * MB,
  maxRecords: 1_500_000,
  systems: true,
};

const FORMATS: readonly ListFormat[] = [
  ...Object.entries(VPN_SERVER_LISTS).map(([file, provider]): ListFormat => ({
    // Hundreds to thousands of servers per provider.
    name: `${provider} server list`,
    fileName: new RegExp(`(^|/)vpn/ips/${file}\\.txt$`),
    importer: importVpnServerList(provider),
    minRecords: 100,
    maxBytes: 8 * MB,
    maxRecords: 100_000,
    datedByFetch: true,
  })),
  {
    // Apple's iCloud Private Relay egress list: hundreds of thousands of IPv4 and IPv6 ranges.
    name: 'iCloud Private Relay egress ranges',
    fileName: /(^|\/)egress-ip-ranges\.csv$/,
    importer: importPrivateRelayEgress,
    minRecords: 10000,
    // Some 15 MB and 300,000 ranges in recent copies: a few times that, not ten, since the feed it
    // joins is itself bounded.
    maxBytes: 64 * MB,
    maxRecords: 1_000_000,
    datedByFetch: true,
  },
  {
    // A dozen or more VPN providers' own networks (15 systems in 2026).
    name: 'VPN provider AS list',
    fileName: /(^|\/)vpn\/ASN\.txt$/,
    importer: importAsnList('vpnProxy', 'VPN provider AS list'),
    minRecords: 10,
    maxBytes: 1 * MB,
    maxRecords: 1_000,
    datedByFetch: true,
  },
];

/** Whether the address is a known VPN or proxy endpoint: a range export. */
export const ipVpnProxy = defineCapability({
  key: 'ip_vpn_proxy',
  description: 'Whether the address is a known VPN or proxy endpoint.',
  codes: {
    IP_VPN_PROXY: 'The address is a known VPN or proxy endpoint.',
    ...IP_NOT_ANONYMISED,
    ...IP_ANONYMISER_LIST_STALE,
    ...IP_PRIVACY_RELAY,
    ...IP_OPERATOR_CORRECTED,
  },
  tier: 'assess',
  kind: 'snapshot',
  sources: {
    vpnProxy: {
      env: 'FEED_VPN_PROXY_RANGES',
      description: 'VPN and proxy endpoints: `address-or-CIDR,vpn|proxy` per line',
      layout: 'file',
      seed: { file: 'vpn-proxy-ranges.txt' },
      // X4BNet's lists_vpn (MIT): VPN providers' networks by AS, and the servers three providers
      // publish. Not its apple.txt: iCloud Private Relay is a relay, not an anonymiser, named from
      // Apple's own egress list (no licence stated, so fetched at run time, never checked in).
      publishers: [
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ASN.txt',
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/mullvadvpn.txt',
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/pia.txt',
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/protonvpn.txt',
        'https://mask-api.icloud.com/egress-ip-ranges.csv',
      ],
      formats: FORMATS,
      limits: LIMITS,
      kinds: VPN_PROXY_KINDS,
      refreshEveryS: DAY,
      // A dozen or more providers' networks, each announcing several prefixes.
      minRecords: 50,
      // Commercial VPN/proxy exports are weekly or daily; providers rotate endpoints over weeks.
      maxDataAgeS: 14 * DAY,
    },
  },
  subject: 'ip',
  freshnessS: 2 * 24 * HOUR,
  whenMissing: 'unavailable',
  format: 'FRSC binary: range set (v4 and v6 bounds, kind 1 = vpn, 2 = proxy, 3 = privacy relay).',
  snapshot: {
    build: (files) => {
      const entries = parsing(
        'vpnProxy',
        () =>
          parseRangeFeed(
            asRangeFeedText('vpnProxy', file(files, 'vpnProxy'), LIMITS),
            VPN_PROXY_KINDS,
            LIMITS,
          ),
        length,
      );
      return { payload: encode({}, rangeSetArrays(buildRangeSet(entries), 'set')), entries: entries.length };
    },
    decode: (decoded, what): RangeSet => rangeSetFrom(decoded, 'set', what),
  },
  flags: ['vpn', 'proxy'],
  ipFacts: (ip, key, set) => {
    const listed = rangeAt(set, key);
    // Its own ranges first; else the whole system the address is routed from, where the list names
    // that system and the system exists to run such services (wholeSystemListed).
    const { kind, service } = listed.kind !== 0 ? listed : systemListing(ip, set);
    return {
      vpn: kind === 1,
      proxy: kind === 2,
      ...(kind === 3 ? { relay: true } : {}),
      ...(service !== undefined ? { services: { ip_vpn_proxy: service } } : {}),
    };
  },
  replay: {
    verdicts: {
      IP_VPN_PROXY: 'elevated',
      ...UNLISTED_VERDICTS,
      IP_PRIVACY_RELAY: 'neutral',
      IP_OPERATOR_CORRECTED: 'clean',
    },
  },
  finding: ({ ip, stale }, set) => {
    if (!ip) return undefined;
    if (correctedAway(ip, 'vpn', 'proxy')) return { verdict: 'clean', detail: 'IP_OPERATOR_CORRECTED' };
    if (ip.relay) return { verdict: 'neutral', detail: 'IP_PRIVACY_RELAY' };
    if (ip.vpn || ip.proxy) return { verdict: 'elevated', detail: 'IP_VPN_PROXY' };
    // A list of whole systems is as old as the older of itself and the routing table that maps
    // addresses to systems: with either past its maximum age, its silence vouches for nothing.
    const systemsStale =
      set !== undefined && set.systems.asn.length > 0 && stale?.has(ipNetworkType.key) === true;
    return unlistedFinding(stale?.has('ip_vpn_proxy') === true || systemsStale);
  },
});

/**
 * Whether a whole autonomous system the list names is flagged: only a network that exists to host
 * servers (typed `hosting`, or of no known type), and not a hosting company that VPN providers
 * rent servers from (M247, Datacamp / CDN77, known by their hosting brand): their own customers
 * are not VPN users, and the providers' servers there are listed by address. An access, mobile,
 * business or institutional network is never flagged whole, whatever a list says.
 */
export function wholeSystemListed(ip: Pick<IpFacts, 'as_type' | 'network_operator'>): boolean {
  if (ip.as_type !== undefined && ip.as_type !== 'hosting') return false;
  return ip.network_operator === undefined || !isHostingBrand(ip.network_operator);
}

function systemListing(ip: IpFacts, set: RangeSet): { kind: number; service?: string } {
  const asn = ip.asn === undefined ? undefined : Number(ip.asn.slice(2));
  if (asn === undefined || !wholeSystemListed(ip)) return { kind: 0 };
  return systemAt(set, asn);
}
