import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Subject } from '../contract/request.ts';
import { resolveIp, type IpFacts } from '../resolution/ip.ts';
import { resolvePhone, type PhoneFacts } from '../resolution/phone.ts';

/** Evidence gathered for one subject before scoring; the engine itself does no I/O. */
export interface Evidence {
  phone?: PhoneFacts;
  ip?: IpFacts;
  /**
   * Reports in the reputation ledger; `unavailable` when the live lookup could not answer;
   * absent when the ledger was not consulted (the caller's tier does not include it).
   */
  reputation?: { reports: number } | 'unavailable';
}

/**
 * A trunk zero right after the country code (`+44 07911...`): libphonenumber silently strips it
 * and reports the number valid, but the contract says such a caller ID resolves to no range and
 * scores as unattested. A leading zero that belongs to the number (Italy's `+39 06...`) keeps the
 * number valid exactly as written, so it is not a trunk zero.
 */
export function hasTrunkZero(e164: string): boolean {
  // Calling codes are 1 to 3 digits: with no zero in the first four digits there is nothing to
  // check, which spares most numbers a second parse.
  if (!e164.slice(2, 5).includes('0')) return false;
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return false;
  const afterCode = e164.slice(1 + parsed.countryCallingCode.length);
  return afterCode.startsWith('0') && !(parsed.isValid() && parsed.number === e164);
}

/** Numbering facts for a syntactically valid E.164 string, with the trunk-zero rule applied. */
export function phoneEvidence(e164: string): PhoneFacts {
  const facts = resolvePhone(e164);
  if (!hasTrunkZero(e164)) return facts;
  return {
    e164,
    valid: false,
    possible: false,
    trunkZero: true,
    allocated: false,
    ...(facts.calling_code ? { calling_code: facts.calling_code } : {}),
  };
}

/**
 * Everything the engine needs, from in-memory data only. The reputation ledger has no report
 * feed yet, so when the tier consults it, it answers with zero reports (verdict no_match).
 */
export function gatherEvidence(subject: Subject, consultLedger: boolean): Evidence {
  const evidence: Evidence = {};
  if (subject.phone_number) evidence.phone = phoneEvidence(subject.phone_number);
  if (subject.ip_address) evidence.ip = resolveIp(subject.ip_address);
  if (consultLedger) evidence.reputation = { reports: 0 };
  return evidence;
}
