import { describe, expect, it } from 'vitest';
import { bindParams, quote, quoteIdent } from './sql.ts';

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

  it('binds {name:Type} placeholders as quoted literals, and refuses what it cannot bind', () => {
    expect(
      bindParams('WHERE org_id = {org_id:String} AND toDate(t) >= {from:Date}', {
        org_id: "o'1",
        from: '2026-10-05',
      }),
    ).toBe("WHERE org_id = 'o\\'1' AND toDate(t) >= toDate('2026-10-05')");
    expect(() => bindParams('{from:Date}', { from: "2026-10-05' OR 1=1" })).toThrow();
    expect(() => bindParams('{org_id:String}', {})).toThrow();
    expect(() => bindParams('{n:UInt8}', { n: '1' })).toThrow();
  });
});
