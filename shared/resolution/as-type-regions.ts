/**
 * Region of an autonomous system for the labelled sample's strata: the Regional Internet
 * Registry whose service region holds the registry country of the first IPv4 range the AS
 * originates (@ip-location-db/geo-whois-asn-country, the registries' own country per block).
 * The country → registry table follows the registries' published service regions; a transfer
 * between registries or a block registered abroad can put an AS in another region, which only
 * moves it to a neighbouring stratum.
 */
import { countryAt, type IpNetworks } from './ip-networks.ts';
import { findV4 } from './ip-ranges.ts';
import { continentOf } from './continents.ts';

export const RIRS = ['AFRINIC', 'APNIC', 'ARIN', 'LACNIC', 'RIPE'] as const;
export type Rir = (typeof RIRS)[number] | 'unknown';

/** North American and Caribbean countries ARIN serves; the rest of the continent is LACNIC's. */
const ARIN_NA = new Set('US CA PR VI AI AG BS BB BM VG KY DM GD JM MS KN LC VC TC PM'.split(' '));
/** Countries of the Middle East, the Caucasus and Central Asia that the RIPE NCC serves. */
const RIPE_ASIA = new Set(
  'AE BH IL IQ IR JO KW LB OM PS QA SA SY YE TR CY AM AZ GE KZ KG TJ TM UZ'.split(' '),
);

export function rirOfCountry(country: string): Rir {
  const continent = continentOf(country);
  if (continent === undefined) return 'unknown';
  if (continent === 'AF') return 'AFRINIC';
  if (continent === 'EU' || RIPE_ASIA.has(country) || country === 'GL') return 'RIPE';
  if (continent === 'AS' || continent === 'OC') return 'APNIC';
  if (continent === 'SA') return 'LACNIC';
  if (continent === 'NA') return ARIN_NA.has(country) ? 'ARIN' : 'LACNIC';
  return 'ARIN';
}

/** First IPv4 address of each AS in the routing table. */
export function firstV4(networks: IpNetworks): Map<number, number> {
  const out = new Map<number, number>();
  const { asn, bounds } = networks.asnV4;
  for (let i = 0; i < asn.length; i++) if (!out.has(asn[i]!)) out.set(asn[i]!, bounds.starts[i]!);
  return out;
}

export function rirOfAddress(networks: IpNetworks, address: number): Rir {
  const row = findV4(networks.countryV4.bounds, address);
  return row < 0 ? 'unknown' : rirOfCountry(countryAt(networks.countryV4, row));
}
