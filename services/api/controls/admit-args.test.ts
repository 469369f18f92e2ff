import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { admitArgv, type AdmitArgs } from './admit-args.ts';

const args: AdmitArgs = {
  rateRps: 1,
  credits: 2,
  overdraft: 3,
  creditsTtlS: 4,
  fingerprint: 'fp',
  inProgressTtlS: 6,
  token: 'tok',
  idempotencyEntriesPerDay: 8,
  billed: true,
  nowMs: 10,
  idempotencyTtlS: 11,
};

describe('admitArgv', () => {
  it("lays the arguments out in admit.lua's ARGV order", () => {
    expect(admitArgv(args)).toEqual([1, 2, 3, 4, 'fp', 6, 'tok', 8, '1', 10, 11]);
    expect(admitArgv({ ...args, billed: false })[8]).toBe('0');
  });

  it('covers every ARGV the script reads but the run count, which the sender appends', () => {
    const lua = readFileSync(new URL('./admit.lua', import.meta.url), 'utf8');
    const read = new Set([...lua.matchAll(/ARGV\[(\d+)\]/g)].map((m) => Number(m[1])));
    expect(Math.max(...read)).toBe(admitArgv(args).length + 1);
  });
});
