import { defineCapability, DAY, HOUR } from '../definition.ts';
import { NDC_LEVELS, parseNdcFeed, type NdcLevel, type NdcRisk } from '../feeds/ndc-feed.ts';
import { encode, file, parsing } from '../snapshot-format.ts';

/** Range types that fraud favours: cheap to obtain in bulk, easy to move, or billed to the callee. */
const ELEVATED_LINE_TYPES = new Set([
  'voip',
  'premium_rate',
  'shared_cost',
  'personal_number',
  'uan',
  'pager',
]);

/** Risk of the number's range: the range-risk feed, else the line type of the numbering plan. */
export const ndcRangeRisk = defineCapability({
  key: 'ndc_range_risk',
  description: 'Risk of the range type of the number (VoIP, premium rate, personal numbers...).',
  codes: {
    NDC_RANGE_ELEVATED:
      'The number is in a range type often used for fraud (VoIP, premium rate, shared cost, personal numbers).',
    NDC_RANGE_ORDINARY: 'The number is in an ordinary mobile or fixed-line range.',
    NDC_RANGE_UNKNOWN: 'The number resolves to no range, so its range risk cannot be assessed.',
  },
  tier: 'assess',
  kind: 'snapshot',
  sources: {
    ndcRisk: {
      env: 'FEED_NDC_RISK',
      description: 'Numbering-range risk: `+prefix,elevated|ordinary` per line',
      layout: 'file',
      seed: { file: 'ndc-range-risk.csv' },
      publishers: [],
      unpublished: "the fraud team's own list of numbering ranges, written from regulators' plans",
      refreshEveryS: 6 * HOUR,
      // A curated list: a handful of overrides is a genuine file.
      minRecords: 1,
      // It follows regulators' numbering changes (months) and fraud campaigns (weeks): a list not
      // reviewed for 90 days misses the ranges of a whole season.
      maxDataAgeS: 90 * DAY,
    },
  },
  subject: 'phone',
  freshnessS: 7 * 24 * HOUR,
  whenMissing: 'degraded',
  format: 'FRSC binary: prefix-to-level map in the JSON header (a few thousand entries at most).',
  snapshot: {
    build: (files) => {
      const risk = parsing(
        'ndcRisk',
        () => parseNdcFeed(file(files, 'ndcRisk')),
        (r) => r.size,
      );
      return { payload: encode({ ndc: [...risk] }, {}), entries: risk.size };
    },
    decode: (decoded, what): NdcRisk => {
      const pairs = decoded.header.ndc;
      if (!Array.isArray(pairs)) throw new Error(`${what}: prefix map is missing`);
      return new Map(
        (pairs as [string, NdcLevel][]).filter(([p, l]) => typeof p === 'string' && NDC_LEVELS.includes(l)),
      );
    },
  },
  replay: {
    verdicts: { NDC_RANGE_ELEVATED: 'elevated', NDC_RANGE_ORDINARY: 'clean', NDC_RANGE_UNKNOWN: 'no_match' },
  },
  finding: ({ phone: p, ndcListed: listed }) => {
    if (!p) return undefined;
    if (!p.valid) return { verdict: 'no_match', detail: 'NDC_RANGE_UNKNOWN' };
    // The range-risk feed overrides the line-type rule either way: it knows ranges, not just types.
    if (listed === 'ordinary') return { verdict: 'clean', detail: 'NDC_RANGE_ORDINARY' };
    return listed === 'elevated' || ELEVATED_LINE_TYPES.has(p.line_type ?? '')
      ? { verdict: 'elevated', detail: 'NDC_RANGE_ELEVATED' }
      : { verdict: 'clean', detail: 'NDC_RANGE_ORDINARY' };
  },
});
