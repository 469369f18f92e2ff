import { describe, expect, it } from 'vitest';
import { quote, quoteIdent } from './sql.ts';

describe('sql quoting', () => {
  it('escapes quotes and backslashes so a value cannot end its literal', () => {
    expect(quote("a'b")).toBe("'a\\'b'");
    expect(quote('a\\')).toBe("'a\\\\'");
    expect(quote("x\\' OR 1=1 --")).toBe("'x\\\\\\' OR 1=1 --'");
  });

  it('accepts only plain identifiers', () => {
    expect(quoteIdent('frs')).toBe('frs');
    expect(() => quoteIdent('frs; DROP')).toThrow();
  });
});
