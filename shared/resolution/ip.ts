import ipaddr from 'ipaddr.js';
import type { AddressKey } from './range-set.ts';
import { classifyAsWithOperator, type AsType } from './as-type.ts';
import { continentOf } from './continents.ts';
import { countryAt, type IpNetworks } from './ip-networks.ts';
import { findV4, findV6 } from './ip-ranges.ts';

/** Network attributes of an IP address. */
export interface IpFacts {
  /** Canonical form; an IPv4-mapped IPv6 address is reported as its IPv4. */
  address: string;
  version: 4 | 6;
  /** Never a routable subscriber: special-purpose space, or space no registry has allocated (see `resolveIp`). */
  bogon: boolean;
  /** ipaddr.js's name of the special-purpose range, `unicast`, or `unallocated`. */
  range: string;
  /** Origin AS, as `AS<number>`. */
  asn?: string;
  as_name?: string;
  /** Absent when the AS is unknown or its type cannot be told (see as-type.ts). */
  as_type?: Exclude<AsType, 'unknown'>;
  /**
   * Who runs the network ("Akamai, Linode"), when the classification knows it. Internal: for
   * explanations, not part of the public resolution (engine.ts copies fields by name).
   */
  network_operator?: string;
  /** Registry (whois) country of the allocation, ISO 3166-1 alpha-2. */
  country_code?: string;
  continent?: string;
  /**
   * On an AS whose type is `hosting`, or on a range the network-type capability lists as hosting
   * in an AS of unknown type (which is then typed `hosting`; its `ipFacts`,
   * shared/capabilities/definition.ts): `as_type` and `hosting` always agree. `vpn`, `proxy`,
   * `relay` and `tor` are set the same way, by the capabilities whose lists name the address.
   */
  hosting: boolean;
  vpn: boolean;
  proxy: boolean;
  tor: boolean;
  /**
   * An egress of a privacy relay (iCloud Private Relay) the VPN/proxy feed lists: benign, named
   * in `services` under that capability's key. Internal, like `network_operator`.
   */
  relay?: true;
  /**
   * The services the range feeds name for the address ("Mullvad VPN", "Amazon Web Services"), by
   * the component key of the capability that named them, so an analyst reading explain sees
   * which; the score response does not carry them.
   */
  services?: Readonly<Record<string, string>>;
  /**
   * The flags an operator correction set (shared/capabilities/corrections.ts), after every list.
   * Internal: findings give IP_OPERATOR_CORRECTED for a flag corrected away; never in a response.
   */
  corrected?: ('hosting' | 'vpn' | 'proxy' | 'tor')[];
}

interface Located {
  asn?: number;
  country?: string;
}

function addressKey(addr: ipaddr.IPv4 | ipaddr.IPv6): AddressKey {
  if (addr.kind() === 'ipv4') {
    const [a, b, c, d] = (addr as ipaddr.IPv4).octets as [number, number, number, number];
    return { v4: a * 0x1000000 + ((b << 16) | (c << 8) | d) };
  }
  const p = (addr as ipaddr.IPv6).parts;
  return {
    hi: (BigInt(p[0]! * 0x10000 + p[1]!) << 32n) | BigInt(p[2]! * 0x10000 + p[3]!),
    lo: (BigInt(p[4]! * 0x10000 + p[5]!) << 32n) | BigInt(p[6]! * 0x10000 + p[7]!),
  };
}

/** The lookup key of an address literal, as range sets take it (IPv4-mapped IPv6 as IPv4). */
export function addressKeyOf(literal: string): AddressKey {
  let addr = ipaddr.parse(literal.split('%')[0]!);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addressKey(addr);
}

function locate(networks: IpNetworks, key: AddressKey): Located {
  return 'v4' in key ? locateV4(networks, key.v4) : locateV6(networks, key.hi, key.lo);
}

function locateV4(networks: IpNetworks, value: number): Located {
  const asnRow = findV4(networks.asnV4.bounds, value);
  const countryRow = findV4(networks.countryV4.bounds, value);
  return {
    ...(asnRow >= 0 ? { asn: networks.asnV4.asn[asnRow]! } : {}),
    ...(countryRow >= 0 ? { country: countryAt(networks.countryV4, countryRow) } : {}),
  };
}

function locateV6(networks: IpNetworks, hi: bigint, lo: bigint): Located {
  const asnRow = findV6(networks.asnV6.bounds, hi, lo);
  const countryRow = findV6(networks.countryV6.bounds, hi, lo);
  return {
    ...(asnRow >= 0 ? { asn: networks.asnV6.asn[asnRow]! } : {}),
    ...(countryRow >= 0 ? { country: countryAt(networks.countryV6, countryRow) } : {}),
  };
}

/**
 * Bogon rule: an address is a bogon when ipaddr.js places it in a special-purpose range
 * (RFC 6890 and successors: private, loopback, documentation such as 192.0.2.0/24, reserved,
 * multicast, ...), or when it is in neither the routing table (@ip-location-db/asn) nor any
 * registry allocation (@ip-location-db/geo-whois-asn-country), the "unallocated" part of Team
 * Cymru's full bogon list. Allocated space that is simply not announced is not a bogon: it is
 * reported with its country and no AS.
 *
 * Without `networks` (the network tables are unavailable) only the special-purpose check
 * applies: nothing is called unallocated on no evidence. With `networksStale` (the
 * tables are older than their maximum data age) absence from them is no evidence either: space
 * allocated after their date would look unallocated, so an address they do not list is an
 * unknown network, while special-purpose ranges stay bogons.
 */
export function resolveIp(literal: string, networks: IpNetworks | undefined, networksStale = false): IpFacts {
  let addr = ipaddr.parse(literal.split('%')[0]!);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  const range = addr.range();
  const facts: IpFacts = {
    address: addr.toString(),
    version: addr.kind() === 'ipv4' ? 4 : 6,
    bogon: range !== 'unicast',
    range,
    hosting: false,
    vpn: false,
    proxy: false,
    tor: false,
  };
  if (facts.bogon) return facts;

  if (!networks) return facts;

  const located = locate(networks, addressKey(addr));
  if (located.asn === undefined && located.country === undefined) {
    if (networksStale) return facts;
    facts.bogon = true;
    facts.range = 'unallocated';
    return facts;
  }
  if (located.asn !== undefined) {
    const name = networks.asNames.get(located.asn);
    facts.asn = `AS${located.asn}`;
    if (name) facts.as_name = name;
    const { type, operator } = classifyAsWithOperator(located.asn, name);
    if (operator) facts.network_operator = operator;
    if (type !== 'unknown') facts.as_type = type;
    facts.hosting = type === 'hosting';
  }
  if (located.country !== undefined) {
    facts.country_code = located.country;
    const continent = continentOf(located.country);
    if (continent) facts.continent = continent;
  }
  return facts;
}
