/**
 * The public formats `feeds:update` reads, recognised by the end of their path (a file name, or
 * a list's folder and name in the layout its publisher uses; for a URL, its path), each with its importer and the fewest records a genuine file of it has: a file
 * below that is a truncated download or an error page, not a smaller list.
 */
import { importAwsIpRanges, importGoogleCloudJson } from './cloud-ranges.ts';
import type { ImportedFeed, ImportTarget } from './imported-feed.ts';
import { importAsnList, importVpnServerList, VPN_SERVER_LISTS } from './network-lists.ts';
import { importPrivateRelayEgress } from './private-relay.ts';
import { importIp2asn, importRirCountries, type ImportedTable, type TableFeed } from './network-tables.ts';
import { importRirDelegated } from './rir-delegated.ts';
import { importTorBulkExitList } from './tor-bulk-exit-list.ts';

const MB = 1024 * 1024;

export type Importer = (bytes: Buffer, fetchedAt: Date) => ImportedFeed;

export interface PublicFormat {
  name: string;
  /** The feed file it becomes. */
  feed: ImportTarget;
  /** Matched against the path with `/` separators. */
  fileName: RegExp;
  importer: Importer;
  minRecords: number;
  /** About ten times a genuine file: a larger one is refused before it is read. */
  maxBytes: number;
  /** Records it may yield, about ten times a genuine file's; the feed it becomes has its own bound. */
  maxRecords: number;
  /** The file carries no date of its own: its date is when it was fetched. */
  datedByFetch: boolean;
}

export const PUBLIC_FORMATS: readonly PublicFormat[] = [
  {
    // Some 1,000 to 2,000 exits are listed at any time.
    name: 'Tor bulk exit list',
    feed: 'torExits',
    fileName: /(^|\/)torbulkexitlist[^/]*$/,
    importer: importTorBulkExitList,
    minRecords: 500,
    maxBytes: 2 * MB,
    maxRecords: 20_000,
    datedByFetch: true,
  },
  {
    // Several thousand distinct prefixes.
    name: 'AWS ip-ranges.json',
    feed: 'hosting',
    fileName: /(^|\/)ip-ranges\.json$/,
    importer: importAwsIpRanges,
    minRecords: 1000,
    maxBytes: 32 * MB,
    maxRecords: 200_000,
    datedByFetch: false,
  },
  {
    // Several hundred prefixes.
    name: 'Google Cloud cloud.json',
    feed: 'hosting',
    fileName: /(^|\/)cloud\.json$/,
    importer: importGoogleCloudJson,
    minRecords: 200,
    maxBytes: 8 * MB,
    maxRecords: 50_000,
    datedByFetch: false,
  },
  {
    // The smallest registry (AFRINIC) still has several thousand address records.
    name: 'RIR delegated-extended statistics',
    feed: 'allocatedRanges',
    fileName: /(^|\/)delegated-[^/]+-extended[^/]*$/,
    importer: importRirDelegated,
    minRecords: 1000,
    maxBytes: 64 * MB,
    maxRecords: 1_000_000,
    datedByFetch: false,
  },
  ...Object.entries(VPN_SERVER_LISTS).map(([file, provider]): PublicFormat => ({
    // Hundreds to thousands of servers per provider.
    name: `${provider} server list`,
    feed: 'vpnProxy',
    fileName: new RegExp(`(^|/)vpn/ips/${file}\\.txt$`),
    importer: importVpnServerList(provider),
    minRecords: 100,
    maxBytes: 8 * MB,
    maxRecords: 100_000,
    datedByFetch: true,
  })),
  {
    // Apple's iCloud Private Relay egress list: hundreds of thousands of IPv4 and IPv6 ranges.
    name: 'iCloud Private Relay egress ranges',
    feed: 'vpnProxy',
    fileName: /(^|\/)egress-ip-ranges\.csv$/,
    importer: importPrivateRelayEgress,
    minRecords: 10000,
    // Some 15 MB and 300,000 ranges in recent copies: a few times that, not ten, since the VPN
    // feed it joins is itself bounded.
    maxBytes: 64 * MB,
    maxRecords: 1_000_000,
    datedByFetch: true,
  },
  {
    // A dozen or more VPN providers' own networks (15 systems in 2026).
    name: 'VPN provider AS list',
    feed: 'vpnProxy',
    fileName: /(^|\/)vpn\/ASN\.txt$/,
    importer: importAsnList('vpnProxy', 'VPN provider AS list'),
    minRecords: 10,
    maxBytes: 1 * MB,
    maxRecords: 1_000,
    datedByFetch: true,
  },
  {
    // Hundreds of hosting, cloud and CDN networks (892 systems in 2026).
    name: 'data-centre AS list',
    feed: 'hosting',
    fileName: /(^|\/)datacenter\/ASN\.txt$/,
    importer: importAsnList('hosting', 'data-centre AS list'),
    minRecords: 300,
    maxBytes: 4 * MB,
    maxRecords: 20_000,
    datedByFetch: true,
  },
];

/** The format of a file, by its path (`/`-separated) or a URL's path. */
export function recognise(path: string): PublicFormat | undefined {
  const normalised = path.replace(/\\/g, '/');
  return PUBLIC_FORMATS.find((f) => f.fileName.test(normalised));
}

/** A publisher's file that becomes part of a table feed (the network type's multi-file tables). */
export interface TableFormat {
  name: string;
  feed: TableFeed;
  fileName: RegExp;
  importer: (bytes: Buffer, fetchedAt: Date) => ImportedTable;
  minRecords: number;
  /** The file as served (gzipped where the publisher gzips it): about ten times a genuine one. */
  maxBytes: number;
}

export const TABLE_FORMATS: readonly TableFormat[] = [
  {
    // Some 500,000 routed IPv4 and 100,000 IPv6 ranges, a few MB gzipped.
    name: 'IPtoASN ip2asn',
    feed: 'asn',
    fileName: /(^|\/)ip2asn-v[46]\.tsv(\.gz)?$/,
    importer: importIp2asn,
    minRecords: 20_000,
    maxBytes: 128 * MB,
  },
  {
    // The registries' statistics again, for the country each block is registered in.
    name: 'RIR delegated-extended statistics (countries)',
    feed: 'ipCountry',
    fileName: /(^|\/)delegated-[^/]+-extended[^/]*$/,
    importer: (bytes) => importRirCountries(bytes),
    minRecords: 1000,
    maxBytes: 64 * MB,
  },
];

/** The table format of a file for `feed`, by its path. */
export function recogniseTable(path: string, feed: string): TableFormat | undefined {
  const normalised = path.replace(/\\/g, '/');
  return TABLE_FORMATS.find((f) => f.feed === feed && f.fileName.test(normalised));
}
