/**
 * A capability added after every release, defined in one place, for the tests that show a folder
 * and one list line are all a capability needs (shared/capabilities/new-capability*.test.ts): its
 * own feed and seed, its publisher's format (`address,first_seen` CSV) with its importer and
 * limits, its reason codes, its address flag (`proxy`) and its replay declaration. The tests add
 * it to the list with `vi.mock` and may add more (a candidate version and its points).
 */
import type { CapabilityDefinition } from '../../shared/capabilities/definition.ts';
import type { RangeSet } from '../../shared/resolution/range-set.ts';
import { encode, file, length, parsing } from '../../shared/capabilities/snapshot-format.ts';
import { parseRangeFeed } from '../../shared/capabilities/feeds/range-feed.ts';
import { buildRangeSet, kindAt, rangeSetArrays, rangeSetFrom } from '../../shared/resolution/range-set.ts';
import { addressKeyOf } from '../../shared/resolution/ip.ts';
import { imported } from '../../shared/capabilities/feeds/importers/imported-feed.ts';
import { FeedError } from '../../shared/capabilities/feeds/feed-error.ts';

export type AddedLater = CapabilityDefinition<
  'ip_added_later',
  'IP_ADDED_LISTED' | 'IP_ADDED_UNLISTED',
  RangeSet
>;

/** The capability, reading its seed at `seed`. */
export function addedLaterCapability(seed: string): AddedLater {
  const def: AddedLater = {
    key: 'ip_added_later',
    description: 'Whether the address is on a list added after every release.',
    codes: {
      IP_ADDED_LISTED: 'The address is on the added list.',
      IP_ADDED_UNLISTED: 'The address is not on the added list.',
    },
    tier: 'assess',
    kind: 'snapshot',
    sources: {
      addedList: {
        env: 'FEED_ADDED_LIST',
        description: 'Addresses on the added list, one address or CIDR per line',
        layout: 'file',
        seed: { path: () => seed },
        publishers: ['https://lists.example.invalid/added-list.csv'],
        // Its publisher's format and its importer, declared here: formats.ts gathers them.
        formats: [
          {
            name: 'added list CSV',
            fileName: /(^|\/)added-list\.csv$/,
            importer: (bytes, fetchedAt, limits) => {
              const [header, ...rows] = bytes.toString('utf8').trim().split('\n');
              if (header !== 'address,first_seen') throw new FeedError('not an added list CSV');
              return imported(
                'addedList',
                'added list CSV',
                fetchedAt,
                rows.map((r) => r.split(',')[0]!),
                limits,
              );
            },
            minRecords: 1,
            maxBytes: 4096,
            maxRecords: 100,
            datedByFetch: true,
          },
        ],
        limits: { minPrefix: { v4: 24, v6: 48 }, maxBytes: 65_536, maxRecords: 1000 },
        refreshEveryS: 3 * 3600,
        minRecords: 1,
        maxDataAgeS: 2 * 86_400,
      },
    },
    subject: 'ip',
    freshnessS: 7200,
    whenMissing: 'unavailable',
    format: 'FRSC binary: range set.',
    snapshot: {
      build: (files) => {
        const entries = parsing('addedList', () => parseRangeFeed(file(files, 'addedList')), length);
        return {
          payload: encode({}, rangeSetArrays(buildRangeSet(entries), 'set')),
          entries: entries.length,
        };
      },
      decode: (decoded, what) => rangeSetFrom(decoded, 'set', what),
    },
    // Its address flag: a listed address is a proxy, as the response's subject says, beside what
    // the VPN/proxy feed says (a list raises a flag, never lowers another's: flags.ts).
    flags: ['proxy'],
    ipFacts: (_ip, key, set) => ({ proxy: kindAt(set, key) !== 0 }),
    // How a stored code of it replays (scoring/replay.ts): nothing else names its codes.
    replay: { verdicts: { IP_ADDED_LISTED: 'elevated', IP_ADDED_UNLISTED: 'clean' } },
    // Its lookup, in its own definition: the subject's address against its own range set.
    finding: ({ ip }, set) => {
      if (!ip || !set) return undefined;
      return kindAt(set, addressKeyOf(ip.address)) !== 0
        ? { verdict: 'elevated', detail: 'IP_ADDED_LISTED' }
        : { verdict: 'clean', detail: 'IP_ADDED_UNLISTED' };
    },
  };
  return def;
}
