/**
 * Openly licensed lists of VPN and data-centre networks, in the layout of X4B's `lists_vpn`
 * (MIT): per-provider lists of VPN server addresses (`input/vpn/ips/<provider>.txt`, one address
 * or CIDR per line) and lists of autonomous systems (`input/vpn/ASN.txt`,
 * `input/datacenter/ASN.txt`, `AS<number> # <name>` per line).
 *
 * Server lists become VPN ranges named for their provider. An AS list becomes the prefixes those
 * systems announce, read from the routing table the service ships (@ip-location-db/asn): the
 * prefixes are as old as that table, so the import is dated by the older of the two. Each range
 * keeps the service it belongs to as its trailing comment (range-feed.ts), so resolution can say
 * which VPN or cloud an address belongs to.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { dataPackages, packageDataAsOf } from '../../../resolution/data-packages.ts';
import { FeedError } from '../feed-error.ts';
import { parseStrictRange, type PrefixFloor } from '../strict-address.ts';
import { asListExclusion } from './as-list-agreement.ts';
import { FEED_LIMITS, imported, type ImportedFeed, type ImportTarget } from './imported-feed.ts';

/** Service names of the providers whose server lists are read, by file name. */
export const VPN_SERVER_LISTS: Readonly<Record<string, string>> = {
  mullvadvpn: 'Mullvad VPN',
  pia: 'Private Internet Access',
  protonvpn: 'Proton VPN',
};

/** A service name as a feed comment: one line, no `#`, at most 80 characters. */
function serviceName(text: string): string {
  return text
    .replace(/[#\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);
}

/**
 * A server list holds servers: single addresses or small blocks of them. A /24 of IPv4 or a /48
 * of IPv6 is a data-centre rack; anything wider is not a server.
 */
export const SERVER_LIST_FLOOR: PrefixFloor = { v4: 24, v6: 48 };

/**
 * Server lists are compiled by hand and by scripts from providers' pages, and carry the odd stray
 * line (a host name, a range typed wrong, `0.0.0.0/0`): such a line is skipped and counted, and
 * the list is refused when more than this share of its entries is skipped.
 */
export const SERVER_LIST_MAX_SKIPPED = 0.01;

/** A provider's VPN server list: every address or CIDR, as a VPN range named for the provider. */
export function importVpnServerList(provider: string) {
  return (bytes: Buffer, fetchedAt: Date): ImportedFeed => {
    const lines: string[] = [];
    const skipped: number[] = [];
    const text = bytes.toString('utf8').split('\n');
    for (let i = 0; i < text.length; i++) {
      const entry = text[i]!.replace(/#.*$/, '').trim();
      if (entry === '') continue;
      const range = parseStrictRange(entry, SERVER_LIST_FLOOR);
      if (typeof range === 'string') skipped.push(i + 1);
      else lines.push(`${range.cidr},vpn # ${provider}`);
    }
    const entries = lines.length + skipped.length;
    if (skipped.length > 0 && skipped.length > entries * SERVER_LIST_MAX_SKIPPED) {
      throw new FeedError(
        `${skipped.length} of ${entries} entries are not server addresses (more than ` +
          `${SERVER_LIST_MAX_SKIPPED * 100} %; first at line ${skipped[0]})`,
      );
    }
    const note =
      skipped.length > 0 ? `, ${skipped.length} stray lines skipped (first at line ${skipped[0]})` : '';
    return imported(
      'vpnProxy',
      `${provider} server list (date: when it was fetched${note})`,
      fetchedAt,
      lines,
    );
  };
}

/** `AS<number> # <name>` lines: the numbers and the names the list gives them. */
export function parseAsnList(bytes: Buffer): Map<number, string> {
  const out = new Map<number, string>();
  const text = bytes.toString('utf8').split('\n');
  for (let i = 0; i < text.length; i++) {
    const line = text[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^AS(\d{1,10})\b\s*(?:#\s*(.*))?$/i.exec(line);
    const asn = m ? Number(m[1]) : NaN;
    if (!m || !Number.isSafeInteger(asn) || asn > 0xffffffff) {
      throw new FeedError(`line ${i + 1}: not 'AS<number> # <name>'`);
    }
    out.set(asn, serviceName(m[2] ?? ''));
  }
  return out;
}

/** The CIDRs covering exactly the addresses from `start` to `end` (inclusive), each as large as alignment allows. */
export function rangeToCidrs(start: bigint, end: bigint, width: 32 | 128): string[] {
  const out: string[] = [];
  let at = start;
  while (at <= end) {
    let bits = 0;
    // Grow the block while `at` stays aligned to it and it ends within the range.
    while (
      bits < width &&
      (at & ((1n << BigInt(bits + 1)) - 1n)) === 0n &&
      at + (1n << BigInt(bits + 1)) - 1n <= end
    ) {
      bits++;
    }
    out.push(`${formatAddress(at, width)}/${width - bits}`);
    at += 1n << BigInt(bits);
  }
  return out;
}

function formatAddress(value: bigint, width: 32 | 128): string {
  const bytes: number[] = [];
  for (let i = width / 8 - 1; i >= 0; i--) bytes.push(Number((value >> BigInt(i * 8)) & 255n));
  return ipaddr.fromByteArray(bytes).toString();
}

function addressValue(text: string): bigint {
  let v = 0n;
  for (const b of ipaddr.parse(text).toByteArray()) v = (v << 8n) | BigInt(b);
  return v;
}

/** A CSV field's text: a quoted field loses its quotes, and `""` inside it is one `"`. */
export function csvText(field: string): string {
  const quoted = field.length >= 2 && field.startsWith('"') && field.endsWith('"');
  return quoted ? field.slice(1, -1).replaceAll('""', '"') : field;
}

/**
 * The prefixes each listed AS originates, from the shipped routing table's `start,end,asn,name`
 * files, with the table's date. Read once per command.
 */
function routedPrefixes(asns: ReadonlySet<number>): {
  prefixes: Map<number, string[]>;
  names: Map<number, string>;
  asOf: Date;
} {
  const pkg = dataPackages().asn;
  const asOf = new Date(packageDataAsOf('@ip-location-db/asn', pkg.version) ?? NaN);
  const prefixes = new Map<number, string[]>();
  const names = new Map<number, string>();
  for (const [file, width] of [
    ['asn-ipv4.csv', 32],
    ['asn-ipv6.csv', 128],
  ] as const) {
    for (const row of readFileSync(join(pkg.dir, file), 'utf8').split('\n')) {
      const first = row.indexOf(',');
      const second = row.indexOf(',', first + 1);
      const third = row.indexOf(',', second + 1);
      if (third < 0) continue;
      const asn = Number(row.slice(second + 1, third));
      // Special-purpose space (6to4 relays' 192.88.99.0/24, say) is never a subscriber: not listed.
      if (!asns.has(asn) || ipaddr.parse(row.slice(0, first)).range() !== 'unicast') continue;
      const cidrs = rangeToCidrs(
        addressValue(row.slice(0, first)),
        addressValue(row.slice(first + 1, second)),
        width,
      );
      const list = prefixes.get(asn);
      if (list) list.push(...cidrs);
      else prefixes.set(asn, cidrs);
      if (!names.has(asn)) names.set(asn, serviceName(csvText(row.slice(third + 1))));
    }
  }
  return { prefixes, names, asOf };
}

/**
 * An AS list, into the ranges of those systems: VPN ranges (`vpnProxy`, named as the list names
 * the AS: "Surfshark") or hosting ranges (`hosting`, named by the AS's registered name).
 */
export function importAsnList(target: Extract<ImportTarget, 'vpnProxy' | 'hosting'>, label: string) {
  return (bytes: Buffer, fetchedAt: Date): ImportedFeed => {
    const listed = parseAsnList(bytes);
    const { prefixes, names, asOf } = routedPrefixes(new Set(listed.keys()));
    if (Number.isNaN(asOf.getTime())) throw new FeedError('the routing table has no known date');
    const lines: string[] = [];
    const floor = FEED_LIMITS[target].minPrefix;
    const left: string[] = [];
    for (const [asn, listName] of listed) {
      const why = prefixes.has(asn) ? asListExclusion(target, asn, names.get(asn)) : undefined;
      if (why !== undefined) {
        left.push(`AS${asn} ${why}`);
        continue;
      }
      const name = target === 'vpnProxy' ? listName || names.get(asn) : names.get(asn) || listName;
      const suffix = name ? ` # ${name}` : '';
      for (const cidr of prefixes.get(asn) ?? []) {
        if (typeof parseStrictRange(cidr, floor) === 'string') {
          throw new FeedError(`AS${asn} originates ${cidr}, wider than a ${label} may hold`);
        }
        lines.push(`${cidr}${target === 'vpnProxy' ? ',vpn' : ''}${suffix}`);
      }
    }
    const dated = new Date(Math.min(fetchedAt.getTime(), asOf.getTime()));
    return imported(
      target,
      `${label}: ${listed.size} autonomous systems, prefixes from @ip-location-db/asn ${dataPackages().asn.version}` +
        (left.length > 0
          ? `; left out, own network type disagrees (as-list-agreement.ts): ${left.join(', ')}`
          : ''),
      dated,
      lines,
    );
  };
}
