import { describe, expect, it } from 'vitest';
import { newOutcomeId } from '../ids.ts';
import { countVotes, DAY_MS, REPORT_LIFETIME_MS } from './ledger-votes.ts';

const now = Date.UTC(2026, 10, 25, 12);
const vote = (state: string, ageMs = DAY_MS) => `${newOutcomeId(now - ageMs)} ${state}`;

describe("countVotes: who counts in one caller's view of a subject", () => {
  it("another organisation's report counts only when it had scored the subject; the viewer's own always", () => {
    const votes = { org_a: vote('t'), org_b: vote('o'), org_v: vote('o') };
    expect(countVotes('org_v', [[votes]], now)).toEqual({ organisations: 2, own: true });
    expect(countVotes('org_x', [[votes]], now)).toEqual({ organisations: 1, own: false });
    expect(countVotes('org_b', [[votes]], now)).toEqual({ organisations: 2, own: true });
  });

  it('lifted and withdrawn votes count for nobody, the reporter included', () => {
    const votes = { org_a: vote('w'), org_b: vote('x') };
    expect(countVotes('org_a', [[votes]], now)).toEqual({ organisations: 0, own: false });
    expect(countVotes('org_b', [[votes]], now)).toEqual({ organisations: 0, own: false });
  });

  it('a report ages out after 180 days', () => {
    const fresh = { org_a: vote('t', REPORT_LIFETIME_MS - DAY_MS) };
    const old = { org_a: vote('t', REPORT_LIFETIME_MS + DAY_MS) };
    expect(countVotes('org_x', [[fresh]], now).organisations).toBe(1);
    expect(countVotes('org_x', [[old]], now).organisations).toBe(0);
  });

  it("one organisation's report on a number and an address is one vote, never two", () => {
    const phone = { org_a: vote('t'), org_b: vote('t') };
    const ip = { org_a: vote('t') };
    expect(countVotes('org_x', [[phone], [ip]], now)).toEqual({ organisations: 2, own: false });
  });

  it("across a secret rotation the organisation's latest outcome decides, under either key", () => {
    const older = { org_a: vote('t', 10 * DAY_MS) };
    const newer = { org_a: vote('w', 1 * DAY_MS) };
    expect(countVotes('org_x', [[newer, older]], now).organisations).toBe(0);
    expect(countVotes('org_x', [[older, newer]], now).organisations).toBe(0);
    expect(countVotes('org_x', [[{}, older]], now).organisations).toBe(1);
  });
});
