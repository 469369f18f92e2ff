import { defineCapability, DAY, HOUR } from '../definition.ts';

/** A subject's reports count up to this many; more say nothing the third did not. */
export const REPUTATION_CAP = 3;

/** Fraud reports about the subject: the live ledger, looked up per request behind a breaker. */
export const reputationLedger = defineCapability({
  key: 'reputation_ledger',
  description: 'Fraud reports about the subject in the reputation ledger.',
  codes: {
    REPUTATION_REPORTED: 'The subject has fraud reports in the reputation ledger.',
    REPUTATION_NO_REPORTS: 'The subject has no fraud reports in the reputation ledger.',
  },
  tier: 'bureau',
  kind: 'live',
  sources: {
    reputation: {
      env: 'FEED_REPUTATION',
      description: 'Fraud reports: `subject,reports` per line (E.164 number or IP address)',
      layout: 'file',
      seed: { file: 'reputation.csv' },
      publishers: [],
      unpublished: "the consortium's fraud-report export; the shipped file is a format sample",
      refreshEveryS: 5 * 60,
      minRecords: 1,
      // The export is daily; reports count for 180 days. Two missed exports and the base lacks
      // reports the other members already act on.
      maxDataAgeS: 2 * DAY,
    },
  },
  subject: 'any',
  freshnessS: 2 * HOUR,
  whenMissing: 'unavailable',
  format:
    'Redis hash per version in the ledger Redis: field = 128-bit HMAC-SHA-256 of the canonical subject under the server secret, value = reports.',
  // A stored REPUTATION_REPORTED counts as the reports the row kept (at least one: it was reported).
  replay: {
    verdicts: { REPUTATION_REPORTED: 'elevated', REPUTATION_NO_REPORTS: 'no_match' },
    byReports: (code, reports) =>
      code === 'REPUTATION_REPORTED' ? reportedFinding(Math.max(1, reports)) : undefined,
  },
  // Absent when the caller's tier does not consult the ledger; `unavailable` is the lookup's answer.
  finding: ({ reputation: rep }) => {
    if (rep === undefined) return undefined;
    if (rep === 'unavailable') return { verdict: 'unavailable', detail: 'SOURCE_UNAVAILABLE' };
    if (rep.reports === 0) return { verdict: 'no_match', detail: 'REPUTATION_NO_REPORTS' };
    return { detail: 'REPUTATION_REPORTED', ...reportedFinding(rep.reports) };
  },
});

/** Reported subjects: adverse from the cap on, each report counted up to it. */
function reportedFinding(reports: number) {
  return {
    verdict: reports >= REPUTATION_CAP ? 'adverse' : 'elevated',
    times: Math.min(REPUTATION_CAP, reports),
  } as const;
}
