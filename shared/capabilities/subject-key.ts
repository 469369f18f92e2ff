/**
 * How the reputation ledger names a subject in Redis: a keyed HMAC of its canonical form, never
 * the subject itself nor a bare digest of it. A bare SHA-256 of a phone number is reversed by
 * hashing the ten billion numbers of a country; without the server secret a dump is only noise.
 *
 * Rotation: a deployment sets the new secret as LEDGER_SUBJECT_SECRET and the old one as
 * LEDGER_SUBJECT_SECRET_PREVIOUS. Writers use the current secret only; readers look a subject up
 * under both and merge, so no report is lost while the old entries age out (180 days).
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import ipaddr from 'ipaddr.js';

const E164 = /^\+[1-9]\d{1,14}$/;
/**
 * A dotted quad without leading zeros: already the canonical form, which ipaddr.js would parse and
 * print back unchanged. Most addresses callers send are such; the ledger lookup then skips two
 * parses per request. (A leading zero is octal to ipaddr.js: those take the full path.)
 */
const CANONICAL_V4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export type SubjectKind = 'phone' | 'ip';

/** The canonical form subjects are keyed on: `phone:+<digits>` or `ip:<address>`, v4-mapped as v4. */
export function canonicalSubject(kind: SubjectKind, value: string): string | undefined {
  if (kind === 'phone') return E164.test(value) ? `phone:${value}` : undefined;
  if (CANONICAL_V4.test(value)) return `ip:${value}`;
  if (!ipaddr.isValid(value)) return undefined;
  let addr = ipaddr.parse(value);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return `ip:${addr.toString()}`;
}

/** The canonical forms of a subject's number and address, each on its own (either may be absent). */
export function canonicalSubjects(subject: { phone_number?: string; ip_address?: string }): string[] {
  const out: string[] = [];
  const phone = subject.phone_number && canonicalSubject('phone', subject.phone_number);
  const ip = subject.ip_address && canonicalSubject('ip', subject.ip_address);
  if (phone) out.push(phone);
  if (ip) out.push(ip);
  return out;
}

export class SubjectKeys {
  // Key objects, not strings: createHmac then skips importing the secret on every call (a quarter
  // of an HMAC's cost), and the scoring path takes one per subject per request.
  private readonly current: KeyObject;
  private readonly previous: KeyObject | undefined;

  constructor(secret: string, previous?: string) {
    if (secret.length < 32) throw new Error('the ledger subject secret needs at least 32 characters');
    this.current = createSecretKey(secret, 'utf8');
    this.previous = previous === undefined ? undefined : createSecretKey(previous, 'utf8');
  }

  static fromConfig(cfg: {
    LEDGER_SUBJECT_SECRET: string;
    LEDGER_SUBJECT_SECRET_PREVIOUS?: string | undefined;
  }) {
    return new SubjectKeys(cfg.LEDGER_SUBJECT_SECRET, cfg.LEDGER_SUBJECT_SECRET_PREVIOUS);
  }

  /** 128 bits of HMAC-SHA-256 of the canonical subject under the current secret: what writers use. */
  key(canonical: string): string {
    return hmac(this.current, canonical);
  }

  /** Tells secrets apart without revealing them: an HMAC of a fixed label under the current secret. */
  fingerprint(): string {
    return hmac(this.current, 'frs ledger subject naming').slice(0, 8);
  }

  /**
   * The names a reader looks the subject up under: the current secret's (the writers' `key`)
   * first, then the previous one's.
   */
  keys(canonical: string): string[] {
    return this.previous === undefined
      ? [hmac(this.current, canonical)]
      : [hmac(this.current, canonical), hmac(this.previous, canonical)];
  }
}

function hmac(secret: KeyObject, canonical: string): string {
  return createHmac('sha256', secret).update(canonical).digest('hex').slice(0, 32);
}
