/**
 * The publishers' files the network type's sources are made from, and what each feed may hold.
 * A file is recognised by the end of its path and read by its importer (../feeds/importers/).
 */
import { importAwsIpRanges, importGoogleCloudJson } from '../feeds/importers/cloud-ranges.ts';
import type { ListFormat, TableFormat } from '../feeds/importers/format.ts';
import type { FeedLimits } from '../feeds/importers/imported-feed.ts';
import { importAsnList } from '../feeds/importers/network-lists.ts';
import { importIp2asn, importRirCountries } from '../feeds/importers/network-tables.ts';
import { importRirDelegated, REGISTRY_FLOOR } from '../feeds/importers/rir-delegated.ts';

const MB = 1024 * 1024;

/** A registry's delegated-extended statistics file, by the name every registry gives it. */
const RIR_FILE = /(^|\/)delegated-[^/]+-extended[^/]*$/;

/** The routing table: IPtoASN's files, some 500,000 IPv4 and 100,000 IPv6 ranges, a few MB gzipped. */
export const ASN_TABLES: readonly TableFormat[] = [
  {
    name: 'IPtoASN ip2asn',
    fileName: /(^|\/)ip2asn-v[46]\.tsv(\.gz)?$/,
    importer: importIp2asn,
    minRecords: 20_000,
    maxBytes: 128 * MB,
  },
];

/** The registry-country table: the registries' statistics, for the country each block is registered in. */
export const COUNTRY_TABLES: readonly TableFormat[] = [
  {
    name: 'RIR delegated-extended statistics (countries)',
    fileName: RIR_FILE,
    importer: (bytes) => importRirCountries(bytes),
    minRecords: 1000,
    maxBytes: 64 * MB,
  },
];

/**
 * A cloud or data-centre network's prefixes: the widest single block a provider holds is a legacy
 * IPv4 /8 (/10 today); in IPv6 no registry has allocated one holder more than a /19. About ten
 * times what the merged files hold.
 */
export const HOSTING_LIMITS: FeedLimits = {
  minPrefix: { v4: 8, v6: 19 },
  maxBytes: 64 * MB,
  maxRecords: 1_000_000,
  systems: true,
};

export const HOSTING_FORMATS: readonly ListFormat[] = [
  {
    // Several thousand distinct prefixes.
    name: 'AWS ip-ranges.json',
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
    fileName: /(^|\/)cloud\.json$/,
    importer: importGoogleCloudJson,
    minRecords: 200,
    maxBytes: 8 * MB,
    maxRecords: 50_000,
    datedByFetch: false,
  },
  {
    // Hundreds of hosting, cloud and CDN networks (892 systems in 2026).
    name: 'data-centre AS list',
    fileName: /(^|\/)datacenter\/ASN\.txt$/,
    importer: importAsnList('hosting', 'data-centre AS list'),
    minRecords: 300,
    maxBytes: 4 * MB,
    maxRecords: 20_000,
    datedByFetch: true,
  },
];

/** Registry delegations: nothing wider than IANA hands the registries. */
export const ALLOCATION_LIMITS: FeedLimits = {
  minPrefix: REGISTRY_FLOOR,
  maxBytes: 128 * MB,
  maxRecords: 2_000_000,
};

export const ALLOCATION_FORMATS: readonly ListFormat[] = [
  {
    // The smallest registry (AFRINIC) still has several thousand address records.
    name: 'RIR delegated-extended statistics',
    fileName: RIR_FILE,
    importer: importRirDelegated,
    minRecords: 1000,
    maxBytes: 64 * MB,
    maxRecords: 1_000_000,
    datedByFetch: false,
  },
];
