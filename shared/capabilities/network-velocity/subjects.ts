/**
 * What network velocity counts and how it speaks: its subjects (a number, an address and the
 * address's network: IPv4 /24, IPv6 /64), its windows and the buckets its counts are shown in.
 * Subjects are named only by the ledger's keyed digest (subject-key.ts), never in clear.
 */
import ipaddr from 'ipaddr.js';
import { canonicalSubject, type SubjectKeys } from '../subject-key.ts';

/** Nothing is shown and nothing scores until this many distinct organisations scored the subject. */
export const MIN_ORGANISATIONS = 3;
/**
 * An organisation set per subject stops growing here: past 25 every count reads "25+", so more
 * members would only cost memory (counter.ts bounds a subject's hash with it).
 */
export const MAX_ORGANISATIONS = 64;

export const WINDOWS = ['1h', '24h', '30d'] as const;
export type VelocityWindow = (typeof WINDOWS)[number];
export const WINDOW_S: Readonly<Record<VelocityWindow, number>> = {
  '1h': 3600,
  '24h': 24 * 3600,
  '30d': 30 * 24 * 3600,
};

/**
 * Buckets of a count: 0 none, 1 one, 2 two to four, 3 five to 24, 4 twenty-five or more. The
 * edges are the (1, 2–4, 5–24, 25+); no raw count leaves the counter.
 */
export const BUCKET_LABELS = ['0', '1', '2-4', '5-24', '25+'] as const;
export function bucketOf(n: number): number {
  if (n <= 0) return 0;
  if (n === 1) return 1;
  if (n <= 4) return 2;
  if (n <= 24) return 3;
  return 4;
}

export type VelocitySubjectKind = 'phone' | 'ip' | 'net';

/** The network an address belongs to for velocity: its IPv4 /24 or IPv6 /64, as `net:<prefix>/<len>`. */
export function networkOf(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  let addr = ipaddr.parse(address);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (addr.kind() === 'ipv4') {
    const o = (addr as ipaddr.IPv4).octets;
    return `net:${o[0]}.${o[1]}.${o[2]}.0/24`;
  }
  const p = (addr as ipaddr.IPv6).parts;
  // Compressed lowercase text, as ClickHouse's cutIPv6 writes the /64 (migration 011).
  return `net:${new ipaddr.IPv6([p[0]!, p[1]!, p[2]!, p[3]!, 0, 0, 0, 0]).toString()}/64`;
}

/** Whether an address is counted at all: special-purpose space (private, carrier NAT 100.64/10, ...) is nobody's. */
function routable(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let addr = ipaddr.parse(address);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range() === 'unicast';
}

/** The canonical velocity subjects of a request's subject, by kind (either part may be absent). */
export function velocitySubjects(subject: {
  phone_number?: string | undefined;
  ip_address?: string | undefined;
}): { kind: VelocitySubjectKind; canonical: string }[] {
  const out: { kind: VelocitySubjectKind; canonical: string }[] = [];
  const phone = subject.phone_number && canonicalSubject('phone', subject.phone_number);
  if (phone) out.push({ kind: 'phone', canonical: phone });
  const ip = subject.ip_address && routable(subject.ip_address) && canonicalSubject('ip', subject.ip_address);
  if (ip) {
    out.push({ kind: 'ip', canonical: ip });
    const net = networkOf(ip.slice(3));
    if (net) out.push({ kind: 'net', canonical: net });
  }
  return out;
}

/** An organisation as the counter stores it: 48 bits of a keyed digest, never its id. */
export function organisationTag(keys: SubjectKeys, orgId: string): string {
  return keys.key(`org:${orgId}`).slice(0, 12);
}
