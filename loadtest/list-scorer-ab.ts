/**
 * In-process A/B of what an organisation's lists cost a score: one Scorer, the reference subjects,
 * scored alternately for an organisation holding ENTRIES list entries (default 100,000; every
 * twentieth subject listed) and for one holding none, in interleaved blocks so that both see the
 * same machine. Reports CPU per score of each (median over the blocks) and the ratio:
 *
 *   node loadtest/list-scorer-ab.ts [--blocks 20] [--per-block 2000]
 *
 * The whole node's A/B is `SETUP=loadtest/ab-setups/org-lists.ts node loadtest/ab-bench.ts .`;
 * this one takes HTTP, controls, Kafka and the noise of two processes out of the comparison.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildListIndex } from '../shared/capabilities/org-lists/list-index.ts';
import type { ListEntry, OrgListsLookup } from '../shared/capabilities/org-lists/types.ts';
import type { ScoreRequest } from '../shared/contract/request.ts';
import type { Org } from '../shared/orgs/store.ts';
import { calibrationSources } from '../shared/scoring/calibration/build.ts';
import type { LedgerLookup } from '../services/api/capabilities/ledger-lookup.ts';
import type { SnapshotCache } from '../services/api/capabilities/snapshot-cache.ts';
import { Scorer } from '../services/api/scorer.ts';
import { benchEntries } from './ab-setups/org-lists.ts';

const { values } = parseArgs({
  options: { blocks: { type: 'string', default: '20' }, 'per-block': { type: 'string', default: '2000' } },
});
const blocks = Number(values.blocks);
const perBlock = Number(values['per-block']);
const subjects = JSON.parse(
  readFileSync(join(import.meta.dirname, 'results/subjects.json'), 'utf8'),
) as ScoreRequest['subject'][];
const listed = subjects
  .filter((_, i) => i % 20 === 0)
  .flatMap((s) => [
    ...(s.phone_number ? [{ kind: 'phone' as const, value: s.phone_number }] : []),
    ...(s.ip_address ? [{ kind: 'ip' as const, value: s.ip_address }] : []),
  ])
  .map((e) => ({ ...e, effect: 'allow' as const, reason: 'bench subject' }));
const at = new Date().toISOString();
const entries: ListEntry[] = benchEntries(Number(process.env.ENTRIES ?? 100_000), listed).map((e) => ({
  ...e,
  added_by: 'operator:bench',
  added_at: at,
}));
const index = buildListIndex(entries);
const lists: OrgListsLookup = {
  forOrg: (orgId) =>
    orgId === 'org_lists' ? { lists: index, degraded: false } : { lists: undefined, degraded: false },
};
const snapshots = {
  current: { data: calibrationSources().data, states: {} },
  dataStale: () => false,
  status: () => 'ok',
} as unknown as SnapshotCache;
const scorer = new Scorer({
  nodeId: 'bench',
  publish: async () => {},
  snapshots,
  capabilities: [],
  ledger: {} as LedgerLookup,
  lists,
});
const orgOf = (id: string) => ({
  org: { org_id: id, tier: 'bureau', entitlements: [] } as unknown as Org,
  keyId: 'k',
});
const sides = { none: orgOf('org_none'), lists: orgOf('org_lists') };

function block(principal: ReturnType<typeof orgOf>, offset: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < perBlock; i++) {
    const subject = subjects[(offset + i) % subjects.length]!;
    scorer.score({ request: { subject } }, principal, performance.now());
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / perBlock;
}

const results: Record<keyof typeof sides, number[]> = { none: [], lists: [] };
block(sides.none, 0); // warm-up
block(sides.lists, 0);
for (let b = 0; b < blocks; b++) {
  // Alternate which side goes first, so neither always follows the other's garbage.
  const order = b % 2 === 0 ? (['none', 'lists'] as const) : (['lists', 'none'] as const);
  for (const side of order) results[side].push(block(sides[side], b * perBlock));
}
const median = (xs: number[]) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)]!;
const none = median(results.none);
const withLists = median(results.lists);
console.log(
  JSON.stringify({
    entries: entries.length,
    blocks,
    per_block: perBlock,
    cpu_us_per_score_none: Number(none.toFixed(1)),
    cpu_us_per_score_lists: Number(withLists.toFixed(1)),
    ratio: Number((withLists / none).toFixed(4)),
  }),
);
