import { correctedAway, IP_OPERATOR_CORRECTED } from '../corrections.ts';
import { defineCapability, DAY, HOUR } from '../definition.ts';
import { FEED_LIMITS } from '../feeds/importers/imported-feed.ts';
import { asRangeFeedText } from '../feeds/importers/mmdb.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import {
  buildRangeSet,
  rangeAt,
  rangeSetArrays,
  rangeSetFrom,
  type RangeSet,
} from '../../resolution/range-set.ts';
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
      // publish. Not its apple.txt: iCloud Private Relay is a relay, not an anonymiser.
      publishers: [
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ASN.txt',
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/mullvadvpn.txt',
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/pia.txt',
        'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/protonvpn.txt',
      ],
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
            asRangeFeedText('vpnProxy', file(files, 'vpnProxy')),
            VPN_PROXY_KINDS,
            FEED_LIMITS.vpnProxy,
          ),
        length,
      );
      return { payload: encode({}, rangeSetArrays(buildRangeSet(entries), 'set')), entries: entries.length };
    },
    decode: (decoded, what): RangeSet => rangeSetFrom(decoded, 'set', what),
  },
  ipFacts: (_ip, key, set) => {
    const { kind, service } = rangeAt(set, key);
    return {
      vpn: kind === 1,
      proxy: kind === 2,
      ...(kind === 3 ? { relay: true } : {}),
      ...(service !== undefined ? { services: { vpn_proxy: service } } : {}),
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
  finding: ({ ip, stale }) => {
    if (!ip) return undefined;
    if (correctedAway(ip, 'vpn', 'proxy')) return { verdict: 'clean', detail: 'IP_OPERATOR_CORRECTED' };
    if (ip.relay) return { verdict: 'neutral', detail: 'IP_PRIVACY_RELAY' };
    return ip.vpn || ip.proxy
      ? { verdict: 'elevated', detail: 'IP_VPN_PROXY' }
      : unlistedFinding(stale?.has('ip_vpn_proxy') === true);
  },
});
