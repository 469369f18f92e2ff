import { describe, expect, it } from 'vitest';
import { ackedOf, Spell } from './replicas.ts';

describe("WAIT's answer to an admission", () => {
  it('reads the replicas that acknowledged from the pipeline of GET and WAIT', () => {
    expect(
      ackedOf([
        [null, 'x'],
        [null, 1],
      ]),
    ).toEqual({ acked: 1 });
    expect(
      ackedOf([
        [null, null],
        [null, 0],
      ]),
    ).toEqual({ acked: 0 });
  });

  it('takes an error or no answer as no replica, with why', () => {
    const err = new Error('NOREPLICAS');
    expect(
      ackedOf([
        [null, 'x'],
        [err, 0],
      ]),
    ).toEqual({ acked: 0, error: err });
    expect(ackedOf(null).acked).toBe(0);
    expect(String(ackedOf(null).error)).toContain('WAIT not answered');
    expect(String(ackedOf([[null, 'x']]).error)).toContain('WAIT not answered');
  });
});

describe('a spell of unconfirmed admissions', () => {
  it('begins at the first unconfirmed one and ends at the next confirmed one, each said once', () => {
    const spell = new Spell();
    expect([true, false, false, true, true, false].map((c) => spell.note(c))).toEqual([
      undefined,
      'began',
      undefined,
      'ended',
      undefined,
      'began',
    ]);
  });
});
