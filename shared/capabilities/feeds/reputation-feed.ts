/**
 * The reputation feed: fraud reports per subject, one line each, `subject,reports` where the
 * subject is an E.164 number or an IP address and reports a positive integer. A subject listed
 * twice has its reports added up.
 *
 * Subjects are personal data: the ledger keeps them in Redis only under their keyed HMAC
 * (subject-key.ts), never in clear, neither in Redis field names nor in logs.
 */
import { FeedError, feedLines } from './feed-error.ts';
import { canonicalSubject } from '../subject-key.ts';

/** Canonical form of each subject (subject-key.ts) to its total reports. */
export function parseReputationFeed(bytes: Buffer): Map<string, number> {
  const out = new Map<string, number>();
  for (const [line, text] of feedLines(bytes)) {
    const [subject = '', reports = '', ...rest] = text.split(',').map((s) => s.trim());
    const canonical = canonicalSubject(subject.startsWith('+') ? 'phone' : 'ip', subject);
    if (!canonical) throw new FeedError(`line ${line}: subject is neither an E.164 number nor an IP address`);
    if (!/^[1-9]\d{0,5}$/.test(reports) || rest.length > 0) {
      throw new FeedError(`line ${line}: expected 'subject,reports' with reports a positive integer`);
    }
    out.set(canonical, (out.get(canonical) ?? 0) + Number(reports));
  }
  return out;
}
