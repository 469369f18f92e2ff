import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../shared/logger.ts';
import type { Org } from '../../../shared/orgs/store.ts';
import { LocalControls } from './local.ts';
import { Owed } from './owed.ts';
import { Reconciler } from './reconciliation.ts';
import { ReplicaWait } from './replicas.ts';
import { scripted, type ScriptedRedis } from './scripts.ts';

const K = 'frs:credits:{org_0000000000000001}:2026-11';
const org = { org_id: 'org_0000000000000001', rate_rps: 20, credits: 100, overdraft: 5 } as Org;
const log = createLogger('test', 'silent');
// A client that never connects (no command is sent to it): what the reconciler counts needs no Redis.
const idle = new Redis({ lazyConnect: true });
afterAll(() => idle.disconnect());

function reconcilerOver(local: LocalControls, owed: Owed): Reconciler {
  const replicas = new ReplicaWait(idle, log, {});
  return new Reconciler({
    redis: scripted(idle),
    log,
    local,
    owed,
    replicas,
    journal: undefined,
    now: Date.now,
  });
}

describe('what reconciliation counts', () => {
  it('owes nothing and sends nothing when nothing was billed here', async () => {
    const r = reconcilerOver(new LocalControls(1), new Owed());
    expect([r.owesRedis, r.unsettledCredits]).toEqual([false, 0]);
    await r.reconcile();
    expect(idle.status).toBe('wait');
  });

  it('counts what a crash would lose: credits billed here, batches in flight, one per uncertain request', () => {
    const local = new LocalControls(1);
    const owed = new Owed();
    const r = reconcilerOver(local, owed);
    local.admit(org, K, 1_795_000_000_000);
    local.admit(org, K, 1_795_000_000_001);
    expect([r.owesRedis, r.unsettledCredits]).toEqual([true, 2]);
    owed.batch(local.drain(), () => 'b1');
    local.admit(org, K, 1_795_000_000_002);
    owed.uncertain.set('t1', { key: K, idemKey: 'frs:idem:{org_0000000000000001}:x', fp: 'fp' });
    expect([r.owesRedis, r.unsettledCredits]).toEqual([true, 4]);
  });
});

describe('a reconciliation asked for while one is in flight', () => {
  it('runs again for what was billed meanwhile, with no more traffic to trigger it', async () => {
    vi.useFakeTimers();
    try {
      const sent: number[] = [];
      const replies: (() => void)[] = [];
      // Only what the reconciler calls: reconcile.lua, answered when the test says so.
      const redis = {
        status: 'ready',
        frsReconcile: (_k: string, _m: string, n: number) =>
          new Promise<number>((resolve) => {
            sent.push(n);
            replies.push(() => resolve(n));
          }),
      } as unknown as ScriptedRedis;
      const local = new LocalControls(1);
      const owed = new Owed();
      const r = new Reconciler({
        redis,
        log,
        local,
        owed,
        replicas: new ReplicaWait(idle, log, {}),
        journal: undefined,
        now: Date.now,
      });
      local.admit(org, K, 1_795_000_000_000);
      local.admit(org, K, 1_795_000_000_001);
      const first = r.reconcile();
      await vi.advanceTimersByTimeAsync(0);
      // Billed while the first run is in flight; its retry timer fires during that run.
      local.admit(org, K, 1_795_000_000_002);
      void r.reconcile();
      replies.shift()!();
      await first;
      expect([sent, r.unsettledCredits]).toEqual([[2], 1]);
      await vi.advanceTimersByTimeAsync(1_000);
      replies.shift()!();
      await vi.advanceTimersByTimeAsync(0);
      expect([sent, r.unsettledCredits, r.owesRedis]).toEqual([[2, 1], 0, false]);
    } finally {
      vi.useRealTimers();
    }
  });
});
