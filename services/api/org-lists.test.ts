import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListEntry } from '../../shared/capabilities/org-lists/types.ts';
import { createLogger } from '../../shared/logger.ts';
import { LISTS_CHANGED_CHANNEL } from '../../shared/orgs/keyspace.ts';
import { OrgLists } from './org-lists.ts';

const entry = (value: string, effect: 'allow' | 'deny' = 'deny'): ListEntry => ({
  kind: 'ip',
  value,
  effect,
  reason: 'test',
  added_by: 'operator:test',
  added_at: '2026-01-01T00:00:00.000Z',
});

/** The store as Redis would answer: per organisation a version and entries, or a failure. */
class FakeStore {
  lists = new Map<string, { version: number; entries: ListEntry[] }>();
  broken = new Set<string>();
  snapshots = 0;
  indexFails = false;
  async orgsWithLists() {
    if (this.indexFails) throw new Error('redis down');
    return [...this.lists.keys()];
  }
  async version(org: string) {
    return this.lists.get(org)?.version ?? 0;
  }
  async snapshot(org: string) {
    this.snapshots++;
    if (this.broken.has(org)) throw new Error('WRONGTYPE');
    return this.lists.get(org) ?? { version: 0, entries: [] };
  }
  set(org: string, entries: ListEntry[]) {
    this.lists.set(org, { version: (this.lists.get(org)?.version ?? 0) + 1, entries });
  }
}

class FakeSubscriber extends EventEmitter {
  async subscribe() {
    return 1;
  }
  announce(org: string) {
    this.emit('message', LISTS_CHANGED_CHANNEL, org);
  }
}

const log = createLogger('test', 'silent');
const live = new Set<OrgLists>();

function follow(
  store: FakeStore,
  opts: { pollMs?: number; readyWithinMs?: number; registers?: Registry[] } = {},
) {
  const sub = new FakeSubscriber();
  const lists = new OrgLists({ store, subscriber: sub, log, pollMs: opts.pollMs ?? 60_000, ...opts });
  live.add(lists);
  return { lists, sub };
}

const at = (lists: OrgLists, org: string, ip: string) => lists.forOrg(org).lists?.match({ ip }, Date.now());
const until = async (what: () => boolean) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(what()).toBe(true);
};

afterEach(() => {
  for (const l of live) l.stop();
  live.clear();
});

describe('OrgLists', () => {
  it('loads every listed organisation at start, then is ready; others have no lists', async () => {
    const store = new FakeStore();
    store.set('org_a', [entry('192.0.2.1')]);
    store.set('org_b', []);
    const { lists } = follow(store);
    expect(lists.ready).toBe(false);
    expect(lists.forOrg('org_a')).toEqual({ lists: undefined, degraded: true });
    await lists.start();
    expect(lists.ready).toBe(true);
    expect(at(lists, 'org_a', '192.0.2.1')).toEqual({ effect: 'deny', kind: 'ip' });
    expect(lists.forOrg('org_b')).toEqual({ lists: undefined, degraded: false });
    expect(lists.forOrg('org_none')).toEqual({ lists: undefined, degraded: false });
  });

  it('reloads an organisation when it is announced, and only it', async () => {
    const store = new FakeStore();
    store.set('org_a', [entry('192.0.2.1')]);
    store.set('org_b', [entry('192.0.2.2')]);
    const { lists, sub } = follow(store);
    await lists.start();
    const before = store.snapshots;
    store.set('org_a', [entry('192.0.2.1', 'allow')]);
    sub.announce('org_a');
    await until(() => at(lists, 'org_a', '192.0.2.1')?.effect === 'allow');
    expect(store.snapshots - before).toBe(1);
    // Lists are per organisation: org_b never matches org_a's entry.
    expect(at(lists, 'org_b', '192.0.2.1')).toBeUndefined();
  });

  it('heals a missed announcement on the poll, reading only the versions that moved', async () => {
    const store = new FakeStore();
    store.set('org_a', [entry('192.0.2.1')]);
    store.set('org_b', [entry('192.0.2.2')]);
    const { lists } = follow(store, { pollMs: 20 });
    await lists.start();
    const before = store.snapshots;
    store.set('org_c', [entry('198.51.100.7')]);
    await until(() => at(lists, 'org_c', '198.51.100.7') !== undefined);
    await new Promise((r) => setTimeout(r, 60));
    expect(store.snapshots - before).toBe(1);
  });

  it('keeps the previous view of an organisation it cannot load, degraded, until a load succeeds', async () => {
    const store = new FakeStore();
    store.set('org_a', [entry('192.0.2.1')]);
    store.set('org_b', [entry('192.0.2.2')]);
    const registry = new Registry();
    const { lists, sub } = follow(store, { pollMs: 20, registers: [registry] });
    await lists.start();
    store.broken.add('org_a');
    store.set('org_a', []);
    sub.announce('org_a');
    await until(() => lists.forOrg('org_a').degraded);
    expect(at(lists, 'org_a', '192.0.2.1')).toEqual({ effect: 'deny', kind: 'ip' });
    expect(lists.forOrg('org_b').degraded).toBe(false);
    const metrics = await registry.getMetricsAsJSON();
    const value = (name: string) => metrics.find((m) => m.name === name)?.values[0]?.value;
    expect(value('frs_org_lists_degraded_organisations')).toBe(1);
    expect(value('frs_org_lists_entries')).toBe(2);
    store.broken.delete('org_a');
    await until(() => !lists.forOrg('org_a').degraded);
    expect(lists.forOrg('org_a').lists).toBeUndefined();
  });

  it('answers a listed organisation whose first load failed as degraded, not as having no lists', async () => {
    const store = new FakeStore();
    store.set('org_a', [entry('192.0.2.1')]);
    store.broken.add('org_a');
    const { lists } = follow(store);
    await lists.start();
    expect(lists.ready).toBe(true);
    expect(lists.forOrg('org_a')).toEqual({ lists: undefined, degraded: true });
  });

  it('is ready after its bound when Redis cannot be read, every organisation degraded', async () => {
    const store = new FakeStore();
    store.indexFails = true;
    const { lists } = follow(store, { readyWithinMs: 20 });
    await lists.start();
    expect(lists.ready).toBe(false);
    await until(() => lists.ready);
    expect(lists.forOrg('org_any').degraded).toBe(true);
  });
});
