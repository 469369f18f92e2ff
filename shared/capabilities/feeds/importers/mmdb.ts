/**
 * MaxMind DB (`.mmdb`) files as a source: an operator points a capability's feed at the database
 * it already licenses or downloads (MaxMind's `geoipupdate` keeps them current), and the file is
 * walked into the same records the other importers write, so it becomes a snapshot through the
 * same parser, limits and refusals as any feed.
 *
 * - GeoIP2 / GeoIP Anonymous IP (`is_anonymous_vpn`, `is_public_proxy`, `is_residential_proxy`,
 *   `is_hosting_provider`, `is_tor_exit_node`) into the VPN/proxy, hosting and Tor range feeds.
 * - IPinfo's privacy detection (`vpn`, `proxy`, `hosting`) into the VPN/proxy and hosting feeds.
 * - GeoLite2 / GeoIP2 ASN and GeoIP2 ISP (`autonomous_system_number`,
 *   `autonomous_system_organization`), IPinfo Lite and IPinfo's IP to ASN (`asn`, `as_name` or
 *   `name`) into the origin-AS tables of the network type.
 *
 * The file is read by mmdb-lib (MaxMind's format, maintained with MaxMind's contributors). It has
 * no iterator, so the walk asks it for one address after another: each answer carries the prefix
 * length at which the search tree ended, and the next question starts after that network. Every
 * network of the tree, flagged or empty, is visited once. An IPv6 database holds IPv4 at ::/96 and
 * aliases it at ::ffff:0:0/96, 2001::/32 (Teredo) and 2002::/16 (6to4): those are walked once, as
 * IPv4.
 */
import { Reader } from 'mmdb-lib';
import { NETWORK_FILES } from '../../../resolution/ip-networks.ts';
import { FeedError } from '../feed-error.ts';
import { parseStrictRange } from '../strict-address.ts';
import { imported, type FeedLimits, type ImportedFeed } from './imported-feed.ts';
import { rangeToCidrs } from './network-lists.ts';
import { errorMessage } from '../../../error-message.ts';

/** The start of every MaxMind DB's metadata section. */
const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');
/** The metadata section is at most 128 KiB, at the end of the file. */
const METADATA_MAX = 128 * 1024;

export function isMmdb(bytes: Buffer): boolean {
  return bytes.lastIndexOf(METADATA_MARKER, bytes.length - 1) >= Math.max(0, bytes.length - METADATA_MAX);
}

type MmdbRecord = Record<string, unknown>;

interface Network {
  version: 4 | 6;
  start: bigint;
  end: bigint;
  record: MmdbRecord;
}

export interface OpenedMmdb {
  reader: Reader<never>;
  databaseType: string;
  builtAt: Date;
}

export function openMmdb(bytes: Buffer): OpenedMmdb {
  if (!isMmdb(bytes)) throw new FeedError('not a MaxMind DB file (no metadata section)');
  try {
    const reader = new Reader<never>(bytes);
    return { reader, databaseType: reader.metadata.databaseType, builtAt: reader.metadata.buildEpoch };
  } catch (err) {
    throw new FeedError(`not a readable MaxMind DB file: ${errorMessage(err)}`);
  }
}

function addressText(value: bigint, version: 4 | 6): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  return groups.join(':');
}

const V6_ALIASES: readonly [bigint, bigint][] = [
  // ::/96: the IPv4 tree itself. ::ffff:0:0/96, Teredo 2001::/32, 6to4 2002::/16: aliases of it.
  [0n, (1n << 32n) - 1n],
  [0xffffn << 32n, (0xffffn << 32n) | 0xffffffffn],
  [0x20010000n << 96n, (0x20010000n << 96n) | ((1n << 96n) - 1n)],
  [0x2002n << 112n, (0x2002n << 112n) | ((1n << 112n) - 1n)],
];

/** Every network of the database that holds data, in address order, IPv4 first. */
function* networks({ reader }: OpenedMmdb): Generator<Network> {
  const families: [4 | 6, number][] =
    reader.metadata.ipVersion === 6
      ? [
          [4, 32],
          [6, 128],
        ]
      : [[4, 32]];
  for (const [version, width] of families) {
    const last = (1n << BigInt(width)) - 1n;
    let at = 0n;
    while (at <= last) {
      const alias = version === 6 ? V6_ALIASES.find(([from, to]) => at >= from && at <= to) : undefined;
      if (alias) {
        at = alias[1] + 1n;
        continue;
      }
      const [record, depth] = reader.getWithPrefixLength(addressText(at, version)) as [
        MmdbRecord | null,
        number,
      ];
      const end = at + (1n << BigInt(width - depth)) - 1n;
      if (record) yield { version, start: at, end, record };
      at = end + 1n;
    }
  }
}

/** The list feeds a database's flags can become, by the names their sources declare. */
type RangeTarget = string;

/** MaxMind writes flags as booleans, present only when true; IPinfo writes every flag. */
const flag = (r: MmdbRecord, key: string) => r[key] === true || r[key] === 'true';

interface Flags {
  /** Per feed: the kind column of a flagged network (`''` without kinds), undefined if not flagged. */
  columns: Partial<Record<RangeTarget, (r: MmdbRecord) => string | undefined>>;
  /** The service the database names for the network, if any. */
  service: (r: MmdbRecord) => unknown;
  /** Why a feed the database has no flag for cannot be read from it. */
  missing?: Partial<Record<RangeTarget, string>>;
}

/** The databases with anonymiser flags, by their metadata's `database_type`. */
const FLAG_DATABASES: readonly [RegExp, Flags][] = [
  [
    /^(GeoIP2-Anonymous-IP|GeoIP-Anonymous-Plus)\b/,
    {
      columns: {
        torExits: (r) => (flag(r, 'is_tor_exit_node') ? '' : undefined),
        hosting: (r) => (flag(r, 'is_hosting_provider') ? '' : undefined),
        vpnProxy: (r) =>
          flag(r, 'is_anonymous_vpn')
            ? ',vpn'
            : flag(r, 'is_public_proxy') || flag(r, 'is_residential_proxy')
              ? ',proxy'
              : undefined,
      },
      service: (r) => r.provider_name,
    },
  ],
  [
    // IPinfo's privacy detection (`standard_privacy`). Its `relay` (Apple's Private Relay and the
    // like) keeps a user's location and is no anonymiser: not flagged.
    /^ipinfo .*privacy/i,
    {
      columns: {
        hosting: (r) => (flag(r, 'hosting') ? '' : undefined),
        vpnProxy: (r) => (flag(r, 'vpn') ? ',vpn' : flag(r, 'proxy') ? ',proxy' : undefined),
      },
      service: (r) => r.service,
      missing: {
        torExits:
          "IPinfo's tor flag covers every relay role (guard, middle, bridge), not exits: not a Tor exit list",
      },
    },
  ],
];

/** The databases with origin AS numbers: the AS number (IPinfo writes `AS13335`) and its name. */
const AS_DATABASES: readonly [RegExp, (r: MmdbRecord) => [asn: unknown, name: unknown]][] = [
  [
    /^(GeoLite2-ASN|GeoIP2-ASN|GeoIP2-ISP)\b/,
    (r) => [r.autonomous_system_number, r.autonomous_system_organization],
  ],
  [
    // IPinfo Lite (`asn`, `as_name`) and IPinfo's free IP to ASN (`asn`, `name`).
    /^ipinfo .*(lite|asn)/i,
    (r) => [
      typeof r.asn === 'string' && /^AS\d{1,10}$/.test(r.asn) ? Number(r.asn.slice(2)) : undefined,
      r.as_name ?? r.name,
    ],
  ],
];

/** A source line naming the database and its build, which dates the data. */
const describe = (db: OpenedMmdb) => `MaxMind DB file ${db.databaseType} (built ${db.builtAt.toISOString()})`;

/**
 * An Anonymous IP or privacy database, into one of the range feeds. A flagged network wider than the feed
 * holds is a refusal, as in any feed: the database is not a list of that feed's ranges.
 */
export function mmdbRangeFeed(target: RangeTarget, bytes: Buffer, limits: FeedLimits): ImportedFeed {
  const db = openMmdb(bytes);
  const flags = FLAG_DATABASES.find(([type]) => type.test(db.databaseType))?.[1];
  if (!flags) {
    throw new FeedError(
      `a ${db.databaseType} database has no anonymiser flags (an Anonymous IP or privacy database has)`,
    );
  }
  const kind = flags.columns[target];
  if (!kind) throw new FeedError(`${describe(db)}: ${flags.missing?.[target] ?? `no flag for ${target}`}`);
  const floor = limits.minPrefix;
  const lines: string[] = [];
  for (const n of networks(db)) {
    const column = kind(n.record);
    if (column === undefined) continue;
    const named = flags.service(n.record);
    const provider = typeof named === 'string' ? named : '';
    const comment = provider ? ` # ${provider.replace(/[#\r\n]+/g, ' ').slice(0, 80)}` : '';
    for (const cidr of rangeToCidrs(n.start, n.end, n.version === 4 ? 32 : 128)) {
      const range = parseStrictRange(cidr, floor);
      if (typeof range === 'string') throw new FeedError(`${cidr} (flagged for ${target}): ${range}`);
      lines.push(`${range.cidr}${column}${comment}`);
    }
  }
  return imported(target, describe(db), db.builtAt, lines, limits);
}

/** The origin-AS tables in the layout the network type reads (`start,end,asn,name` per row). */
export interface AsnTables {
  asnV4: Buffer;
  asnV6: Buffer;
  builtAt: Date;
  source: string;
  rows: number;
}

const csvQuoted = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/**
 * An ASN or ISP database, into origin-AS rows. Adjacent networks of one AS become one row; a
 * network without an AS number (an ISP record with only a name) is left out, as the routing table
 * leaves out unrouted space.
 */
export function mmdbAsnTables(bytes: Buffer): AsnTables {
  const db = openMmdb(bytes);
  const fields = AS_DATABASES.find(([type]) => type.test(db.databaseType))?.[1];
  if (!fields) {
    throw new FeedError(`a ${db.databaseType} database has no AS numbers (an ASN, ISP or Lite database has)`);
  }
  const out: Record<4 | 6, string[]> = { 4: [], 6: [] };
  let open: { version: 4 | 6; start: bigint; end: bigint; asn: number; name: string } | undefined;
  const close = () => {
    if (open) out[open.version].push(`${open.start},${open.end},${open.asn},${csvQuoted(open.name)}`);
  };
  for (const n of networks(db)) {
    const [asn, org] = fields(n.record);
    if (typeof asn !== 'number' || !Number.isInteger(asn) || asn < 0 || asn > 0xffffffff) continue;
    const name = typeof org === 'string' ? org.replace(/[\r\n]+/g, ' ') : '';
    if (open && open.version === n.version && open.asn === asn && open.end + 1n === n.start) {
      open.end = n.end;
      if (!open.name) open.name = name;
      continue;
    }
    close();
    open = { version: n.version, start: n.start, end: n.end, asn, name };
  }
  close();
  const rows = out[4].length + out[6].length;
  if (rows === 0) throw new FeedError(`${describe(db)}: no networks with an AS number`);
  const text = (lines: string[]) => Buffer.from(lines.length ? `${lines.join('\n')}\n` : '');
  return { asnV4: text(out[4]), asnV6: text(out[6]), builtAt: db.builtAt, source: describe(db), rows };
}

/**
 * A range feed's bytes as the range parser reads them: an `.mmdb` is walked into the feed's text
 * (with its `# as-of:` header, the database's build date); any other file is returned as it is.
 */
export function asRangeFeedText(target: RangeTarget, bytes: Buffer, limits: FeedLimits): Buffer {
  return isMmdb(bytes) ? Buffer.from(mmdbRangeFeed(target, bytes, limits).text) : bytes;
}

/**
 * The files of the `asn` feed as the network type reads them: as fetched, or, when the feed is a
 * single `.mmdb`, the tables walked from it.
 */
export function asnFilesOf(files: Map<string, Buffer> | undefined): Map<string, Buffer> {
  const single = files?.get('');
  if (!files || !single || !isMmdb(single)) return files ?? new Map<string, Buffer>();
  const tables = mmdbAsnTables(single);
  return new Map([
    [NETWORK_FILES.asnV4, tables.asnV4],
    [NETWORK_FILES.asnV6, tables.asnV6],
  ]);
}
