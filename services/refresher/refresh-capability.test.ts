import { describe, expect, it } from 'vitest';
import { checkSize } from './refresh-capability.ts';

describe('size checks of a refresh', () => {
  const current = { version: 'v', format: 1, digest: 'd', entries: 100, built_at: '' };
  it('accepts growth and a moderate shrink, refuses empty and a large shrink', () => {
    expect(() => checkSize(150, current, 0.5)).not.toThrow();
    expect(() => checkSize(50, current, 0.5)).not.toThrow();
    expect(() => checkSize(49, current, 0.5)).toThrow('shrank from 100 to 49 entries (more than 50 %)');
    expect(() => checkSize(0, undefined, 0.5)).toThrow('no entries');
    expect(() => checkSize(1, undefined, 0.5)).not.toThrow();
  });
});
