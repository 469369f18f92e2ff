/**
 * The cloud providers' published range files, into hosting ranges: AWS
 * (https://ip-ranges.amazonaws.com/ip-ranges.json) and Google Cloud
 * (https://www.gstatic.com/ipranges/cloud.json). Both date themselves (AWS by
 * `createDate`, UTC; Google by `syncToken`, epoch milliseconds), so the fetch date is not needed.
 *
 * Each range keeps its provider as a trailing comment (`# Amazon Web Services`, `# Google Cloud`),
 * which the range parser (range-feed.ts) reads as the range's service name.
 * AWS lists a range once per service (AMAZON, EC2, ...): a range is written once.
 */
import { FeedError } from '../feed-error.ts';
import { parseStrictRange } from '../strict-address.ts';
import { imported, type FeedLimits, type ImportedFeed } from './imported-feed.ts';
import type { PrefixFloor } from '../strict-address.ts';
import { errorMessage } from '../../../error-message.ts';

function json(bytes: Buffer, what: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new FeedError(`not ${what}: ${errorMessage(err)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new FeedError(`not ${what}: not a JSON object`);
  }
  return doc as Record<string, unknown>;
}

function entries(doc: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const list = doc[key];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new FeedError(`'${key}' is not a list`);
  return list as Record<string, unknown>[];
}

/** `where` names the entry (`prefixes[12].ip_prefix`): JSON has no useful line numbers. */
function cidr(value: unknown, kind: 'ipv4' | 'ipv6', where: string, floor: PrefixFloor): string {
  const family = kind === 'ipv4' ? 'IPv4' : 'IPv6';
  const range =
    typeof value === 'string' && value.includes('/') ? parseStrictRange(value, floor) : 'no prefix length';
  if (typeof range === 'string') throw new FeedError(`${where}: not an ${family} CIDR: ${range}`);
  if (range.address.kind() !== kind) throw new FeedError(`${where}: not an ${family} CIDR`);
  return range.cidr;
}

function collect(ranges: Iterable<string>, provider: string): string[] {
  return [...new Set(ranges)].map((r) => `${r} # ${provider}`);
}

/** `createDate`: `YYYY-MM-DD-hh-mm-ss`, UTC. */
export function importAwsIpRanges(bytes: Buffer, _fetchedAt: Date, limits: FeedLimits): ImportedFeed {
  const doc = json(bytes, 'an AWS ip-ranges.json');
  const m = /^(\d{4}-\d{2}-\d{2})-(\d{2})-(\d{2})-(\d{2})$/.exec(String(doc.createDate ?? ''));
  if (!m)
    throw new FeedError(`createDate '${String(doc.createDate ?? '')}' is missing or not YYYY-MM-DD-hh-mm-ss`);
  const asOf = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
  const ranges: string[] = [];
  entries(doc, 'prefixes').forEach((p, i) =>
    ranges.push(cidr(p.ip_prefix, 'ipv4', `prefixes[${i}].ip_prefix`, limits.minPrefix)),
  );
  entries(doc, 'ipv6_prefixes').forEach((p, i) =>
    ranges.push(cidr(p.ipv6_prefix, 'ipv6', `ipv6_prefixes[${i}].ipv6_prefix`, limits.minPrefix)),
  );
  const source = `AWS ip-ranges.json (syncToken ${String(doc.syncToken)}, createDate ${String(doc.createDate)})`;
  return imported('hosting', source, asOf, collect(ranges, 'Amazon Web Services'), limits);
}

/**
 * Dated by `syncToken`, milliseconds since the epoch. Its `creationTime` carries no zone and is
 * Google's local (US Pacific) time, seven or eight hours behind: read as UTC it would date the file
 * hours too early (the published file of 2025-07-25 02:16:28 UTC says `2025-07-24T19:16:28.780563`).
 */
export function importGoogleCloudJson(bytes: Buffer, _fetchedAt: Date, limits: FeedLimits): ImportedFeed {
  const doc = json(bytes, 'a Google Cloud cloud.json');
  const token = String(doc.syncToken ?? '');
  if (!/^\d{13}$/.test(token)) {
    throw new FeedError(`syncToken '${token}' is missing or not milliseconds since the epoch`);
  }
  const asOf = new Date(Number(token));
  const ranges = entries(doc, 'prefixes').map((p, i) =>
    p.ipv4Prefix !== undefined
      ? cidr(p.ipv4Prefix, 'ipv4', `prefixes[${i}].ipv4Prefix`, limits.minPrefix)
      : cidr(p.ipv6Prefix, 'ipv6', `prefixes[${i}].ipv6Prefix`, limits.minPrefix),
  );
  const source = `Google Cloud cloud.json (syncToken ${String(doc.syncToken)}, creationTime ${String(doc.creationTime)})`;
  return imported('hosting', source, asOf, collect(ranges, 'Google Cloud'), limits);
}
