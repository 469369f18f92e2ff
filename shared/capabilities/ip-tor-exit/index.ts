import { defineCapability, DAY, HOUR } from '../definition.ts';
import { FEED_LIMITS } from '../feeds/importers/imported-feed.ts';
import { asRangeFeedText } from '../feeds/importers/mmdb.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { buildRangeSet, rangeSetArrays, rangeSetFrom, type RangeSet } from '../range-set.ts';
import { encode, file, length, parsing } from '../snapshot-format.ts';
import { IP_ANONYMISER_LIST_STALE, IP_NOT_ANONYMISED } from '../ip-not-anonymised.ts';
import { TOR_EXIT_CODES, torExitFinding } from './finding.ts';

/** Whether the address is a Tor exit: the Tor Project's bulk exit list. */
export const ipTorExit = defineCapability({
  key: 'ip_tor_exit',
  description: 'Whether the address is a Tor exit node.',
  codes: { ...TOR_EXIT_CODES, ...IP_NOT_ANONYMISED, ...IP_ANONYMISER_LIST_STALE },
  tier: 'assess',
  kind: 'snapshot',
  feeds: ['torExits'],
  subject: 'ip',
  refreshEveryS: 30 * 60,
  freshnessS: 6 * HOUR,
  // Exit relays come and go by the hour; the Tor Project's list is regenerated every 30 minutes.
  // A day-old list misses a noticeable share of the current exits.
  maxDataAgeS: 1 * DAY,
  whenMissing: 'unavailable',
  format: 'FRSC binary: range set (v4 and v6 bounds, kind per range).',
  snapshot: {
    build: (files) => {
      const entries = parsing(
        'torExits',
        () =>
          parseRangeFeed(
            asRangeFeedText('torExits', file(files, 'torExits')),
            undefined,
            FEED_LIMITS.torExits,
          ),
        length,
      );
      return { payload: encode({}, rangeSetArrays(buildRangeSet(entries), 'set')), entries: entries.length };
    },
    decode: (decoded, what): RangeSet => rangeSetFrom(decoded, 'set', what),
  },
  finding: torExitFinding,
});
