import { describe, expect, it } from 'vitest';
import { creditsExhausted, creditsHeaders } from './credits.ts';

describe('the credits of an admission', () => {
  it('says what is left on a billed answer only, overdraft included as a negative count', () => {
    expect(creditsHeaders(true, 12)).toEqual({ 'X-Credits-Remaining': '12' });
    expect(creditsHeaders(true, -3)).toEqual({ 'X-Credits-Remaining': '-3' });
    expect(creditsHeaders(false, 12)).toEqual({});
  });

  it('refuses with 402 and the headers of the answer', () => {
    const err = creditsExhausted({ 'X-Credits-Remaining': '-5' });
    expect(err.status).toBe(402);
    expect(err.items.map((i) => i.code)).toEqual(['E_CREDITS_EXHAUSTED']);
    expect(err.headers).toEqual({ 'X-Credits-Remaining': '-5' });
  });
});
