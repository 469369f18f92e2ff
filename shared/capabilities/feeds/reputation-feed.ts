/**
 * The reputation feed: fraud reports per subject, one line each, `subject,reports` where the
 * subject is an E.164 number or an IP address and reports a positive integer. A subject listed
 * twice has its reports added up.
 *
 * Subjects are personal data: the ledger keeps them only as `subjectDigest`s, never in clear,
 * neither in Redis field names nor in logs.
 */
import ipaddr from 'ipaddr.js';
import { FeedError, feedLines } from './feed-error.ts';
import { sha256Hex } from '../../sha256.ts';

const E164 = /^\+[1-9]\d{1,14}$/;

/** The canonical form the ledger keys on: `phone:+<digits>` or `ip:<ipaddr.js form, v4-mapped as v4>`. */
export function canonicalSubject(kind: 'phone' | 'ip', value: string): string | undefined {
  if (kind === 'phone') return E164.test(value) ? `phone:${value}` : undefined;
  if (!ipaddr.isValid(value)) return undefined;
  let addr = ipaddr.parse(value);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return `ip:${addr.toString()}`;
}

/** 128 bits of SHA-256 of the canonical subject: the ledger's field name. */
export function subjectDigest(canonical: string): string {
  return sha256Hex(canonical).slice(0, 32);
}

/** Digest of each subject to its total reports. */
export function parseReputationFeed(bytes: Buffer): Map<string, number> {
  const out = new Map<string, number>();
  for (const [line, text] of feedLines(bytes)) {
    const [subject = '', reports = '', ...rest] = text.split(',').map((s) => s.trim());
    const canonical = canonicalSubject(subject.startsWith('+') ? 'phone' : 'ip', subject);
    if (!canonical) throw new FeedError(`line ${line}: subject is neither an E.164 number nor an IP address`);
    if (!/^[1-9]\d{0,5}$/.test(reports) || rest.length > 0) {
      throw new FeedError(`line ${line}: expected 'subject,reports' with reports a positive integer`);
    }
    const key = subjectDigest(canonical);
    out.set(key, (out.get(key) ?? 0) + Number(reports));
  }
  return out;
}
