import { afterAll, describe, expect, it } from 'vitest';
import { MachineProbe } from './machine-probe.ts';

describe('machine probe', () => {
  const probe = new MachineProbe();
  afterAll(() => probe.stop());

  it('measures a random read slower than a cached one and a compute loop, in a child it keeps', async () => {
    await probe.start();
    const a = await probe.measure(100);
    const b = await probe.measure(100);
    for (const s of [a, b]) {
      // A dependent read past every cache and the TLB's reach costs tens of ns at the very least.
      expect(s.readNs).toBeGreaterThan(20);
      expect(s.readNs).toBeLessThan(1e6);
      expect(s.computeNs).toBeGreaterThan(0);
      expect(s.computeNs).toBeLessThan(1e6);
    }
  }, 60_000);

  it('refuses to measure once stopped', async () => {
    probe.stop();
    await expect(probe.measure(10)).rejects.toThrow('not started');
  });
});
