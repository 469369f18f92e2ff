import type { Subject } from '../contract/request.ts';
import { resolveIp, type IpFacts } from '../resolution/ip.ts';
import { resolvePhone, type PhoneFacts } from '../resolution/phone.ts';
import type { ResolutionData } from '../resolution/resolution-data.ts';

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
 * Everything the engine needs, from in-memory data only. The reputation ledger has no report
 * feed yet, so when the tier consults it, it answers with zero reports (verdict no_match).
 */
export function gatherEvidence(subject: Subject, data: ResolutionData, consultLedger: boolean): Evidence {
  const evidence: Evidence = {};
  if (subject.phone_number) evidence.phone = resolvePhone(subject.phone_number, data.carriers);
  if (subject.ip_address) evidence.ip = resolveIp(subject.ip_address, data.networks);
  if (consultLedger) evidence.reputation = { reports: 0 };
  return evidence;
}
