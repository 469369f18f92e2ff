/**
 * Fixtures of the engine's unit tests, never imported by the service: a released version whose
 * calibration ranks raw risk r at exactly r percent (so a band reads off the points), and the
 * phone facts of a valid mobile and of an impossible number.
 */
import type { PhoneFacts } from '../resolution/phone.ts';
import type { ScoreVersion } from './engine.ts';
import { VERSION_DEFINITIONS } from './weights.ts';

/** Version `id` (default 2026.11.0, floors 20/40/60/80) with the identity calibration. */
export function identityVersion(id = '2026.11.0'): ScoreVersion {
  const released = VERSION_DEFINITIONS.find((v) => v.id === id)!;
  return {
    ...released,
    bandFloors: released.bandFloors!,
    hash: 'test',
    calibration: {
      score_version: released.id,
      method: 'test',
      seed: 0,
      population: 101,
      quantiles: Array.from({ length: 101 }, (_, i) => i),
      cdf: {
        raw: Array.from({ length: 101 }, (_, i) => i),
        below: Array.from({ length: 101 }, (_, i) => i / 100),
      },
    },
  };
}

export const MOBILE: PhoneFacts = {
  e164: '+4915712345678',
  valid: true,
  possible: true,
  trunkZero: false,
  allocated: true,
  country_code: 'DE',
  calling_code: '49',
  ndc: '157',
  line_type: 'mobile',
};

export const IMPOSSIBLE: PhoneFacts = {
  e164: '+444012345678',
  valid: false,
  possible: true,
  trunkZero: false,
  allocated: false,
};
