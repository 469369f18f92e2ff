import { IP_OPERATOR_CORRECTED } from '../corrections.ts';
import { defineCapability, DAY, HOUR } from '../definition.ts';
import type { FeedLimits } from '../feeds/importers/imported-feed.ts';
import { importTorBulkExitList } from '../feeds/importers/tor-bulk-exit-list.ts';
import { asRangeFeedText } from '../feeds/importers/mmdb.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import {
  buildRangeSet,
  kindAt,
  rangeSetArrays,
  rangeSetFrom,
  type RangeSet,
} from '../../resolution/range-set.ts';
import { encode, file, length, parsing } from '../snapshot-format.ts';
import { IP_ANONYMISER_LIST_STALE, IP_NOT_ANONYMISED, UNLISTED_VERDICTS } from '../ip-not-anonymised.ts';
import { TOR_EXIT_CODES, torExitFinding } from './finding.ts';

/**
 * Some 1,000 to 2,000 exits; the Tor Project's file is about 20 kB of single addresses. A MaxMind
 * DB joins adjacent exits into networks, and the largest block one exit operator fills is a /22
 * (IPv6: a /48, one site): wider is not a list of exits.
 */
const LIMITS: FeedLimits = { minPrefix: { v4: 22, v6: 48 }, maxBytes: 2 * 1024 * 1024, maxRecords: 20_000 };

/** Whether the address is a Tor exit: the Tor Project's bulk exit list. */
export const ipTorExit = defineCapability({
  key: 'ip_tor_exit',
  description: 'Whether the address is a Tor exit node.',
  codes: { ...TOR_EXIT_CODES, ...IP_NOT_ANONYMISED, ...IP_ANONYMISER_LIST_STALE, ...IP_OPERATOR_CORRECTED },
  tier: 'assess',
  kind: 'snapshot',
  sources: {
    torExits: {
      env: 'FEED_TOR_EXITS',
      description: 'Tor exit addresses, one per line (the Tor Project bulk exit list)',
      layout: 'file',
      seed: { file: 'tor-exits.txt' },
      publishers: ['https://check.torproject.org/torbulkexitlist'],
      formats: [
        {
          name: 'Tor bulk exit list',
          fileName: /(^|\/)torbulkexitlist[^/]*$/,
          importer: importTorBulkExitList,
          minRecords: 500,
          maxBytes: LIMITS.maxBytes,
          maxRecords: LIMITS.maxRecords,
          datedByFetch: true,
        },
      ],
      limits: LIMITS,
      // The Tor Project regenerates the list about every 40 minutes; hourly keeps within an hour of it.
      refreshEveryS: HOUR,
      // Some 1,000 to 2,000 exits are listed at any time.
      minRecords: 500,
      // Exit relays come and go by the hour: a day-old list misses a noticeable share of them.
      maxDataAgeS: 1 * DAY,
    },
  },
  subject: 'ip',
  freshnessS: 6 * HOUR,
  whenMissing: 'unavailable',
  format: 'FRSC binary: range set (v4 and v6 bounds, kind per range).',
  snapshot: {
    build: (files) => {
      const entries = parsing(
        'torExits',
        () => parseRangeFeed(asRangeFeedText('torExits', file(files, 'torExits'), LIMITS), undefined, LIMITS),
        length,
      );
      return { payload: encode({}, rangeSetArrays(buildRangeSet(entries), 'set')), entries: entries.length };
    },
    decode: (decoded, what): RangeSet => rangeSetFrom(decoded, 'set', what),
  },
  flags: ['tor'],
  ipFacts: (_ip, key, set) => ({ tor: kindAt(set, key) !== 0 }),
  replay: {
    verdicts: {
      IP_TOR_EXIT: 'adverse',
      IP_TOR_OPERATOR_NETWORK: 'elevated',
      ...UNLISTED_VERDICTS,
      IP_OPERATOR_CORRECTED: 'clean',
    },
  },
  finding: torExitFinding,
});
