import ipaddr from 'ipaddr.js';

/** Network attributes of an IP address. */
export interface IpFacts {
  /** Canonical form; an IPv4-mapped IPv6 address is reported as its IPv4. */
  address: string;
  version: 4 | 6;
  /** Special-purpose or reserved space (RFC 6890 and friends): never a routable subscriber. */
  bogon: boolean;
  range: string;
  asn?: string;
  as_name?: string;
  as_type?: string;
  country_code?: string;
  continent?: string;
  hosting: boolean;
  vpn: boolean;
  proxy: boolean;
  tor: boolean;
}

export function resolveIp(literal: string): IpFacts {
  let addr = ipaddr.parse(literal.split('%')[0]!);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  const range = addr.range();
  return {
    address: addr.toString(),
    version: addr.kind() === 'ipv4' ? 4 : 6,
    bogon: range !== 'unicast',
    range,
    hosting: false,
    vpn: false,
    proxy: false,
    tor: false,
  };
}
