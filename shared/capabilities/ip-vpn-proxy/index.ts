import { correctedAway, IP_OPERATOR_CORRECTED } from '../corrections.ts';
import { defineCapability, DAY, HOUR } from '../definition.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { buildRangeSet, rangeAt, rangeSetArrays, rangeSetFrom, type RangeSet } from '../range-set.ts';
import { encode, file, length, parsing } from '../snapshot-format.ts';

export const VPN_PROXY_KINDS = ['vpn', 'proxy'] as const;
import { IP_NOT_ANONYMISED } from '../ip-not-anonymised.ts';

/** Whether the address is a known VPN or proxy endpoint: a range export. */
export const ipVpnProxy = defineCapability({
  key: 'ip_vpn_proxy',
  description: 'Whether the address is a known VPN or proxy endpoint.',
  codes: {
    IP_VPN_PROXY: 'The address is a known VPN or proxy endpoint.',
    ...IP_NOT_ANONYMISED,
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
  format: 'FRSC binary: range set (v4 and v6 bounds, kind 1 = vpn, 2 = proxy).',
  snapshot: {
    build: (files) => {
      const entries = parsing(
        'vpnProxy',
        () => parseRangeFeed(file(files, 'vpnProxy'), VPN_PROXY_KINDS),
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
      ...(service !== undefined ? { services: { vpn_proxy: service } } : {}),
    };
  },
  finding: ({ ip }) => {
    if (!ip) return undefined;
    if (correctedAway(ip, 'vpn', 'proxy')) return { verdict: 'clean', detail: 'IP_OPERATOR_CORRECTED' };
    return ip.vpn || ip.proxy
      ? { verdict: 'elevated', detail: 'IP_VPN_PROXY' }
      : { verdict: 'clean', detail: 'IP_NOT_ANONYMISED' };
  },
});
