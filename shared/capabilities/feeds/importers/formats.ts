/**
 * The public formats `feeds:update` reads, recognised by file name (or a URL's last path
 * segment), each with its importer and the fewest records a genuine file of it has: a file
 * below that is a truncated download or an error page, not a smaller list.
 */
import { importAwsIpRanges, importGoogleCloudJson } from './cloud-ranges.ts';
import type { ImportedFeed, ImportTarget } from './imported-feed.ts';
import { importRirDelegated } from './rir-delegated.ts';
import { importTorBulkExitList } from './tor-bulk-exit-list.ts';

export type Importer = (bytes: Buffer, fetchedAt: Date) => ImportedFeed;

export interface PublicFormat {
  name: string;
  /** The feed file it becomes. */
  feed: ImportTarget;
  fileName: RegExp;
  importer: Importer;
  minRecords: number;
  /** The file carries no date of its own: its date is when it was fetched. */
  datedByFetch: boolean;
}

export const PUBLIC_FORMATS: readonly PublicFormat[] = [
  {
    // Some 1,000 to 2,000 exits are listed at any time.
    name: 'Tor bulk exit list',
    feed: 'torExits',
    fileName: /^torbulkexitlist/,
    importer: importTorBulkExitList,
    minRecords: 500,
    datedByFetch: true,
  },
  {
    // Several thousand distinct prefixes.
    name: 'AWS ip-ranges.json',
    feed: 'hosting',
    fileName: /^ip-ranges\.json$/,
    importer: importAwsIpRanges,
    minRecords: 1000,
    datedByFetch: false,
  },
  {
    // Several hundred prefixes.
    name: 'Google Cloud cloud.json',
    feed: 'hosting',
    fileName: /^cloud\.json$/,
    importer: importGoogleCloudJson,
    minRecords: 200,
    datedByFetch: false,
  },
  {
    // The smallest registry (AFRINIC) still has several thousand address records.
    name: 'RIR delegated-extended statistics',
    feed: 'allocatedRanges',
    fileName: /^delegated-.+-extended/,
    importer: importRirDelegated,
    minRecords: 1000,
    datedByFetch: false,
  },
];

export function recognise(fileName: string): PublicFormat | undefined {
  return PUBLIC_FORMATS.find((f) => f.fileName.test(fileName));
}
