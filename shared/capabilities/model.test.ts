import { describe, expect, it } from 'vitest';
import { FeedError } from './feeds/feed-error.ts';
import {
  capabilityModels,
  LiveCapability,
  SnapshotCapability,
  type BreakerState,
  type Holdings,
} from './model.ts';
import { CAPABILITIES, CAPABILITY_BY_NAME } from './registry.ts';
import { buildSnapshot } from './snapshots.ts';
import type { SnapshotMeta, SnapshotStore } from './store.ts';

const file = (s: string) => new Map([['', Buffer.from(s)]]);
const def = (name: string) => CAPABILITY_BY_NAME.get(name)!;
const meta = (version: string): SnapshotMeta => ({
  version,
  format: 1,
  digest: 'd',
  entries: 1,
  built_at: new Date(0).toISOString(),
});
const now = 1_000_000_000;
const fresh = now - 1_000;

/** A store that records what it was asked; the model's I/O is one call each way. */
function fakeStore(blobs: Record<string, Buffer> = {}) {
  const calls: string[] = [];
  const store = {
    blob: async (name: string, version: string) => blobs[`${name}:${version}`] ?? null,
    publishBlob: async (name: string, m: SnapshotMeta) => void calls.push(`blob ${name} ${m.version}`),
    publishLedger: async (m: SnapshotMeta, reports: Map<string, number>) =>
      void calls.push(`ledger ${m.version} ${reports.size}`),
  } as unknown as SnapshotStore;
  return { store, calls };
}

describe('the capability model', () => {
  it('models every registry entry by its kind, in registry order', () => {
    const caps = capabilityModels(CAPABILITIES);
    expect(caps.map((c) => c.name)).toEqual(CAPABILITIES.map((c) => c.name));
    for (const cap of caps) {
      expect(cap).toBeInstanceOf(cap.def.kind === 'live' ? LiveCapability : SnapshotCapability);
      expect(cap.kind).toBe(cap.def.kind);
    }
  });

  it('a snapshot capability is present when the node holds its data, missing per the registry', () => {
    const tor = new SnapshotCapability(def('ip_tor_exit'));
    const ndc = new SnapshotCapability(def('ndc_range_risk'));
    const none: Holdings = { data: {} };
    expect(tor.present(none)).toBe(false);
    expect(tor.status(none, fresh, now)).toBe('unavailable');
    expect(ndc.status(none, fresh, now)).toBe('degraded');
    const held: Holdings = { data: { ip_tor_exit: {} as never } };
    expect(tor.present(held)).toBe(true);
    expect(tor.status(held, fresh, now)).toBe('ok');
    expect(tor.status(held, undefined, now)).toBe('degraded');
    // A snapshot's presence says nothing about the ledger's, and the reverse.
    expect(tor.present({ data: {}, ledgerVersion: 'v1' })).toBe(false);
  });

  it('data older than its maximum data age is degraded, however recently its source was confirmed', () => {
    const tor = new SnapshotCapability(def('ip_tor_exit'));
    const held: Holdings = { data: { ip_tor_exit: {} as never } };
    const maxMs = tor.def.maxDataAgeS * 1000;
    expect(tor.status(held, fresh, now, now - maxMs + 1_000)).toBe('ok');
    expect(tor.status(held, fresh, now, now - maxMs - 1_000)).toBe('degraded');
    // A version that does not say how old its data is (built before snapshots were dated) is not called stale.
    expect(tor.status(held, fresh, now, undefined)).toBe('ok');
  });

  it('the live ledger is present when the node knows a version; loading it reads nothing', async () => {
    const ledger = new LiveCapability(def('reputation_ledger'));
    const into: Holdings = { data: {} };
    expect(ledger.present(into)).toBe(false);
    expect(ledger.status(into, fresh, now)).toBe('unavailable');
    const { store } = fakeStore();
    await ledger.load(store, meta('v7'), into);
    expect(into).toEqual({ data: {}, ledgerVersion: 'v7' });
    expect(ledger.present(into)).toBe(true);
    expect(ledger.status(into, fresh, now)).toBe('ok');
  });

  it('a snapshot loads its blob into the holdings, and fails when the version is gone', async () => {
    const tor = new SnapshotCapability(def('ip_tor_exit'));
    const { payload } = buildSnapshot('ip_tor_exit', { torExits: file('192.0.2.1\n') });
    const { store } = fakeStore({ 'ip_tor_exit:v1': payload });
    const into: Holdings = { data: {} };
    await tor.load(store, meta('v1'), into);
    expect(tor.present(into)).toBe(true);
    expect(into.ledgerVersion).toBeUndefined();
    await expect(tor.load(store, meta('v2'), { data: {} })).rejects.toThrow(/v2 is gone/);
  });

  it('each kind builds from its feeds and publishes where its nodes read it', async () => {
    const { store, calls } = fakeStore();
    const tor = new SnapshotCapability(def('ip_tor_exit')).build({
      torExits: file('192.0.2.1\n192.0.2.2\n'),
    });
    expect(tor.entries).toBe(2);
    await tor.publish(store, meta('t1'), undefined);
    const ledger = new LiveCapability(def('reputation_ledger')).build({
      reputation: file('+447700900123,4\n192.0.2.9,1\n'),
    });
    expect(ledger.entries).toBe(2);
    await ledger.publish(store, meta('l1'), undefined);
    expect(calls).toEqual(['blob ip_tor_exit t1', 'ledger l1 2']);
    expect(() => new LiveCapability(def('reputation_ledger')).build({})).toThrow(FeedError);
    expect(() =>
      new LiveCapability(def('reputation_ledger')).build({ reputation: file('nonsense\n') }),
    ).toThrow(/reputation: /);
  });

  it('is consulted for the subjects it evaluates; the ledger only when its lookup ran', () => {
    const phone = { phone_number: '+447911123456' };
    const ip = { ip_address: '192.0.2.1' };
    const tor = new SnapshotCapability(def('ip_tor_exit'));
    const cid = new SnapshotCapability(def('caller_id_integrity'));
    const ledger = new LiveCapability(def('reputation_ledger'));
    expect([tor.consulted(ip), tor.consulted(phone)]).toEqual([true, false]);
    expect([cid.consulted(phone), cid.consulted(ip)]).toEqual([true, false]);
    expect([ledger.consulted(ip, true), ledger.consulted(phone, true)]).toEqual([true, true]);
    expect(ledger.consulted(ip, false)).toBe(false);
    // A missing snapshot names its component unavailable; the ledger's lookup answers for itself.
    expect(tor.marksEvidenceUnavailable).toBe(true);
    expect(ledger.marksEvidenceUnavailable).toBe(false);
  });

  it('health of the ledger follows its breaker; a snapshot has none', () => {
    let breaker: BreakerState = 'closed';
    const ledger = new LiveCapability(def('reputation_ledger'), () => breaker);
    expect(ledger.serving('ok')).toEqual({ status: 'ok', breaker: 'closed' });
    breaker = 'half_open';
    expect(ledger.serving('ok')).toEqual({ status: 'degraded', breaker: 'half_open' });
    expect(ledger.serving('unavailable')).toEqual({ status: 'unavailable', breaker: 'half_open' });
    breaker = 'open';
    expect(ledger.serving('ok')).toEqual({ status: 'unavailable', breaker: 'open' });
    expect(new SnapshotCapability(def('ip_tor_exit')).serving('degraded')).toEqual({ status: 'degraded' });
  });
});
