import { defineCapability, HOUR } from '../definition.ts';
import { VELOCITY_CODES, VELOCITY_HIT_CODES, velocityFinding, type VelocityHitCode } from './finding.ts';
import { decodeVelocityTable, encodeVelocityTable, type VelocityTable } from './table.ts';

/** The candidate score version that scores velocity: 2026.12.3 plus the points below. */
export const VELOCITY_VERSION = '2026.12.4';

/**
 * Points per window and organisations' bucket. An hour's burst across organisations is what a ring
 * working one number or address through several of them looks like; a month's count says little
 * more than that the subject is in use. Calibrated and backtested as 2026.12.4 (docs/scoring.md).
 */
const POINTS: Record<VelocityHitCode, number> = {
  NETWORK_VELOCITY_1H_2_4: 12,
  NETWORK_VELOCITY_1H_5_24: 20,
  NETWORK_VELOCITY_1H_25_PLUS: 25,
  NETWORK_VELOCITY_24H_2_4: 6,
  NETWORK_VELOCITY_24H_5_24: 12,
  NETWORK_VELOCITY_24H_25_PLUS: 18,
  NETWORK_VELOCITY_30D_2_4: 2,
  NETWORK_VELOCITY_30D_5_24: 5,
  NETWORK_VELOCITY_30D_25_PLUS: 8,
};

/**
 * How many distinct organisations scored the subject's number, address or network lately
 * (architecture rule 18): counted from the score stream by the audit sink's velocity consumer,
 * published as a sorted digest table by the refresher every few seconds, looked up in memory.
 * Consortium data, so it follows the ledger's tier (docs/security.md "Network velocity").
 */
export const networkVelocity = defineCapability({
  key: 'network_velocity',
  description:
    'How many distinct organisations scored the subject (number, address or its network) in the last hour, day and month, in buckets.',
  codes: VELOCITY_CODES,
  tier: 'bureau',
  consortium: true,
  kind: 'snapshot',
  // No feed: its data is the score stream itself, counted by the audit sink and published by the
  // refresher's own job (services/refresher/publish-counted.ts), as often as the registry says.
  sources: {},
  subject: 'any',
  // The refresher republishes within seconds; a table not confirmed for 2 hours is stale. Each
  // window is read only while the counts are younger than a quarter of it (finding.ts), so a
  // stopped refresher silences the hour's counts within 15 minutes.
  freshnessS: 2 * HOUR,
  whenMissing: 'unavailable',
  format:
    'FRSC binary: sorted 64-bit subject digests (keyed HMAC), organisations and scores buckets per window (1 h, 24 h, 30 d), first seen.',
  snapshot: {
    // The refresher builds it from the counts (publish-counted.ts); from files alone, as
    // calibration builds every capability, it is the empty table a fresh deployment starts with.
    build: () => ({ payload: encodeVelocityTable([], 0), entries: 0 }),
    decode: (decoded, what): VelocityTable => decodeVelocityTable(decoded, what),
  },
  replay: {
    verdicts: {
      ...(Object.fromEntries(Object.keys(VELOCITY_HIT_CODES).map((c) => [c, 'elevated'])) as Record<
        VelocityHitCode,
        'elevated'
      >),
      NETWORK_VELOCITY_SHARED_NETWORK: 'clean',
    },
  },
  finding: (evidence, table) => velocityFinding(evidence, table),
  versions: [
    {
      id: VELOCITY_VERSION,
      from: '2026.12.3',
      description:
        'Network velocity scored: a number or address that several organisations scored within the hour, day or month.',
    },
  ],
  points: { [VELOCITY_VERSION]: POINTS },
});
