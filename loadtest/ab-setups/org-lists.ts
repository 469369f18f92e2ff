/**
 * A/B of an organisation's own lists (SETUP=loadtest/ab-setups/org-lists.ts): both sides run the
 * same node; `after` scores for an organisation holding ENTRIES list entries (default 100,000:
 * numbers, prefixes, addresses, IPv4 and IPv6 ranges, AS numbers), `before` for one holding none.
 * Most of the bench's subjects match no entry (as most of a caller's traffic does); every
 * twentieth number and address is listed, so the bench pays for hits too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListEntryInput } from '../../shared/capabilities/org-lists/types.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import type { AbSetup, AbSetupContext } from './setup.ts';

const ROOT = join(import.meta.dirname, '../..');

/** `n` entries of every kind in turn, each a distinct value; `listed` first (the bench's own subjects). */
export function benchEntries(n: number, listed: readonly ListEntryInput[]): ListEntryInput[] {
  const seen = new Set<string>();
  // The draw repeats some subjects: each listed once.
  const out = listed
    .filter((e) => !seen.has(`${e.kind}:${e.value}`) && seen.add(`${e.kind}:${e.value}`))
    .slice(0, n);
  const reason = 'bench entry';
  for (let i = 0; out.length < n; i++) {
    const effect = i % 2 === 0 ? 'allow' : 'deny';
    const v4 = `${10 + (i % 200)}.${(i >> 8) & 255}.${i & 255}`;
    const kinds: ListEntryInput[] = [
      { kind: 'phone', value: `+4478${String(i).padStart(8, '0')}`, effect, reason },
      {
        kind: 'phone_prefix',
        value: `+1${200_000_000 + i}`,
        effect,
        reason,
      },
      { kind: 'ip', value: `${v4}.7`, effect, reason },
      { kind: 'cidr', value: `${v4}.0/24`, effect, reason },
      { kind: 'cidr', value: `2001:db8:${(i % 65536).toString(16)}::/48`, effect, reason },
      { kind: 'asn', value: `AS${4_200_000_000 + i}`, effect, reason },
    ];
    out.push(kinds[i % kinds.length]!);
  }
  return out;
}

export default async function orgLists({ redis, store }: AbSetupContext): Promise<AbSetup> {
  const subjects = JSON.parse(readFileSync(join(ROOT, 'loadtest/results/subjects.json'), 'utf8')) as {
    phone_number?: string;
    ip_address?: string;
  }[];
  const listed: ListEntryInput[] = subjects
    .filter((_, i) => i % 20 === 0)
    .flatMap((s) => [
      ...(s.phone_number ? [{ kind: 'phone' as const, value: s.phone_number }] : []),
      ...(s.ip_address ? [{ kind: 'ip' as const, value: s.ip_address }] : []),
    ])
    .map((e) => ({ ...e, effect: 'allow' as const, reason: 'bench subject' }));
  const side = async (entries: number) => {
    const org = await store.createOrg({ name: 'ab-lists', tier: 'bureau', rateRps: 1_000_000, credits: 1e9 });
    if (entries > 0)
      await new OrgListStore(redis).replace(org.org_id, benchEntries(entries, listed), 'operator:ab-bench');
    return { orgId: org.org_id, side: { apiKey: (await store.createKey(org.org_id)).api_key } };
  };
  const before = await side(0);
  const after = await side(Number(process.env.ENTRIES ?? 100_000));
  return {
    before: before.side,
    after: after.side,
    // Every API node loads every organisation's lists: left behind, the 100,000 entries would sit
    // in the heap of every node that later runs on this Redis, benches included.
    teardown: async () => {
      await new OrgListStore(redis).replace(after.orgId, [], 'operator:ab-bench');
    },
  };
}
