/**
 * The Redis store of organisations' lists (shared/orgs/lists-store.ts) on the real Redis: a replace
 * is seen whole or not at all, a refused change changes nothing (entries, version, audit), the
 * limit of entries holds, and every change leaves exactly one audit record per entry or replace.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ListEntryError } from '../../shared/capabilities/org-lists/entry.ts';
import { MAX_LIST_ENTRIES, type ListEntryInput } from '../../shared/capabilities/org-lists/types.ts';
import { LISTS_INDEX_KEY, listKey, listOutboxKey, listVersionKey } from '../../shared/orgs/keyspace.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { redis } from '../../infra/harness/fixtures.ts';

const ip = (i: number): ListEntryInput => ({
  kind: 'ip',
  value: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  effect: 'deny',
  reason: 'store test',
});
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => ip(from + i));

describe('OrgListStore', () => {
  const r = redis();
  const store = new OrgListStore(r);
  const orgs: string[] = [];
  const newOrg = () => {
    const org = `org_${randomBytes(8).toString('hex')}`;
    orgs.push(org);
    return org;
  };

  afterAll(async () => {
    for (const org of orgs) await r.del(listKey(org), listVersionKey(org), listOutboxKey(org));
    if (orgs.length > 0) await r.srem(LISTS_INDEX_KEY, ...orgs);
    r.disconnect();
  });

  it('replaces 100,000 entries in one step: a reader sees the old list or the new one, never part', async () => {
    const org = newOrg();
    await store.replace(org, range(0, 10), 'operator:t');
    const reads: number[] = [];
    let replacing = true;
    const reader = (async () => {
      while (replacing) reads.push((await r.hlen(listKey(org))) as number);
    })();
    const started = Date.now();
    const result = await store.replace(org, range(1_000, MAX_LIST_ENTRIES), 'operator:t');
    const took = Date.now() - started;
    replacing = false;
    await reader;
    console.info(`org lists store: 100,000-entry replace ${took} ms`);
    expect(result).toEqual({ version: 2, before: 10, after: MAX_LIST_ENTRIES });
    expect(took).toBeLessThan(15_000);
    expect(reads.every((n) => n === 10 || n === MAX_LIST_ENTRIES)).toBe(true);
    const snapshot = await store.snapshot(org);
    expect(snapshot.version).toBe(2);
    expect(snapshot.entries).toHaveLength(MAX_LIST_ENTRIES);
    // No temporary hash is left behind.
    expect(await r.keys(`frs:list:{${org}}:tmp:*`)).toEqual([]);
  });

  it('refuses a change whole: nothing written, no version, no audit record', async () => {
    const org = newOrg();
    await store.add(org, range(0, 3), 'key:key_1');
    const before = { version: await store.version(org), audit: await r.xlen(listOutboxKey(org)) };
    await expect(store.replace(org, [...range(0, 5), ip(2)], 'operator:t')).rejects.toThrow(ListEntryError);
    await expect(store.replace(org, range(0, MAX_LIST_ENTRIES + 1), 'operator:t')).rejects.toThrow(
      ListEntryError,
    );
    await expect(store.add(org, [{ ...ip(9), kind: 'nope' as 'ip' }], 'operator:t')).rejects.toThrow(
      ListEntryError,
    );
    await expect(store.add(org, [ip(9)], 'nobody')).rejects.toThrow(/actor/);
    expect(await store.version(org)).toBe(before.version);
    expect(await r.xlen(listOutboxKey(org))).toBe(before.audit);
    expect((await store.list(org)).map((e) => e.value)).toEqual(['10.0.0.0', '10.0.0.1', '10.0.0.2']);
  });

  it('holds the limit of entries, counting an entry added again once', async () => {
    const org = newOrg();
    await store.replace(org, range(0, MAX_LIST_ENTRIES), 'operator:t');
    await expect(store.add(org, [ip(MAX_LIST_ENTRIES)], 'operator:t')).rejects.toThrow(/at most 100000/);
    // The same kind and value replaces the entry: still 100,000.
    await expect(store.add(org, [{ ...ip(5), effect: 'allow' }], 'operator:t')).resolves.toEqual({
      version: 2,
    });
    const removed = await store.remove(org, ['ip:10.0.0.5', 'ip:192.0.2.1'], 'operator:t');
    expect(removed).toEqual({ removed: 1, version: 3 });
    await expect(store.add(org, [ip(MAX_LIST_ENTRIES)], 'operator:t')).resolves.toEqual({ version: 4 });
  });

  it('records one audit change per entry added or removed, and one per replace', async () => {
    const org = newOrg();
    await store.add(org, range(0, 2), 'key:key_1');
    await store.replace(org, range(5, 3), 'user:a@example.test');
    await store.remove(org, ['ip:10.0.0.5', 'ip:10.0.0.99'], 'operator:ops');
    // Nothing held: no change, no record, no version.
    await expect(store.remove(org, ['ip:10.0.0.99'], 'operator:ops')).resolves.toEqual({
      removed: 0,
      version: 3,
    });
    const records = await store.outbox(org, 100);
    expect(
      records.map((x) => [x.change?.action, x.change?.actor, x.change?.value ?? x.change?.entries]),
    ).toEqual([
      ['add', 'key:key_1', '10.0.0.0'],
      ['add', 'key:key_1', '10.0.0.1'],
      ['replace', 'user:a@example.test', 3],
      ['remove', 'operator:ops', '10.0.0.5'],
    ]);
    expect(records[2]!.change).toMatchObject({ entries_before: 2, org_id: org });
    expect(new Set(records.map((x) => x.change?.change_id)).size).toBe(4);
    expect(await store.acknowledge(org, [records[0]!.id])).toBe(1);
    expect(await store.outbox(org, 100)).toHaveLength(3);
    expect(await store.orgsWithLists()).toContain(org);
  });

  it('refuses to load a list holding anything it did not write', async () => {
    const org = newOrg();
    await store.add(org, range(0, 2), 'operator:t');
    await r.hset(listKey(org), 'ip:10.0.0.9', '{"not":"an entry"}');
    await expect(store.snapshot(org)).rejects.toThrow(/not a list entry/);
    await r.del(listKey(org));
    await r.set(listKey(org), 'a string');
    await expect(store.snapshot(org)).rejects.toThrow(/WRONGTYPE/);
  });
});
