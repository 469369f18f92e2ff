import { defineCapability, HOUR } from '../definition.ts';

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
  },
  tier: 'verify',
  kind: 'snapshot',
  feeds: ['asn', 'ipCountry', 'hosting'],
  subject: 'ip',
  refreshEveryS: 24 * HOUR,
  freshnessS: 7 * 24 * HOUR,
  whenMissing: 'unavailable',
  format:
    'FRSC binary: ASN and country range tables (Uint32/BigUint64 bounds, values per row), AS names in ' +
    'the header, and the hosting range set.',
  finding: ({ ip }) => {
    if (!ip) return undefined;
    if (ip.bogon) return { verdict: 'adverse', detail: 'IP_BOGON' };
    if (ip.hosting) return { verdict: 'elevated', detail: 'IP_HOSTING' };
    return ip.as_type
      ? { verdict: 'clean', detail: 'IP_ACCESS_NETWORK' }
      : { verdict: 'neutral', detail: 'IP_NETWORK_UNKNOWN' };
  },
});
