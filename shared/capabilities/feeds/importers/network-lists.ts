/**
 * Openly licensed lists of VPN and data-centre networks, in the layout of X4B's `lists_vpn`
 * (MIT): per-provider lists of VPN server addresses (`input/vpn/ips/<provider>.txt`, one address
 * or CIDR per line) and lists of autonomous systems (`input/vpn/ASN.txt`,
 * `input/datacenter/ASN.txt`, `AS<number> # <name>` per line).
 *
 * Server lists become VPN ranges named for their provider. An AS list stays a list of systems
 * (`AS209854,vpn # Surfshark`): a node matches them against the origin AS its own, refreshed
 * routing table gives an address (range-set.ts `systemAt`), and decides there whether the
 * system's own type lets the list flag it whole (the capabilities' `ipFacts`). Expanding them
 * into prefixes here would tie the list to whichever routing table was installed when it was
 * imported, and date it no newer than that table. Each entry keeps the service it belongs to as
 * its trailing comment (range-feed.ts), so resolution can say which VPN or cloud an address
 * belongs to. The lists carry no date of their own: an import is dated when it was fetched.
 */
import ipaddr from 'ipaddr.js';
import { FeedError } from '../feed-error.ts';
import { parseStrictRange, type PrefixFloor } from '../strict-address.ts';
import { imported, type ImportedFeed, type ImportTarget } from './imported-feed.ts';

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

/**
 * An AS list, as the systems it names: VPN providers' own networks (`vpnProxy`, named as the
 * list names them: "Surfshark") or data-centre networks (`hosting`).
 */
export function importAsnList(target: ImportTarget, label: string) {
  return (bytes: Buffer, fetchedAt: Date): ImportedFeed => {
    const listed = parseAsnList(bytes);
    const lines: string[] = [];
    // A VPN system is named as the list names it ("Surfshark"); a data-centre list's comments are
    // its maintainers' notes, so a hosting system is named by its registered name at lookup.
    for (const [asn, name] of listed) {
      lines.push(target === 'vpnProxy' ? `AS${asn},vpn${name ? ` # ${name}` : ''}` : `AS${asn}`);
    }
    return imported(
      target,
      `${label}: ${listed.size} autonomous systems (date: when it was fetched; matched at lookup against the routing table)`,
      fetchedAt,
      lines,
    );
  };
}
