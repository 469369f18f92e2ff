import { defineCapability, HOUR } from '../definition.ts';
import { IP_NOT_ANONYMISED } from '../ip-not-anonymised.ts';

/** Whether the address is a known VPN or proxy endpoint: a range export. */
export const ipVpnProxy = defineCapability({
  key: 'ip_vpn_proxy',
  description: 'Whether the address is a known VPN or proxy endpoint.',
  codes: { IP_VPN_PROXY: 'The address is a known VPN or proxy endpoint.', ...IP_NOT_ANONYMISED },
  tier: 'assess',
  kind: 'snapshot',
  feeds: ['vpnProxy'],
  subject: 'ip',
  refreshEveryS: 6 * HOUR,
  freshnessS: 2 * 24 * HOUR,
  whenMissing: 'unavailable',
  format: 'FRSC binary: range set (v4 and v6 bounds, kind 1 = vpn, 2 = proxy).',
  finding: ({ ip }) => {
    if (!ip) return undefined;
    return ip.vpn || ip.proxy
      ? { verdict: 'elevated', detail: 'IP_VPN_PROXY' }
      : { verdict: 'clean', detail: 'IP_NOT_ANONYMISED' };
  },
});
