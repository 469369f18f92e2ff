import { describe, expect, it } from 'vitest';
import { duplicateKeyPaths } from './duplicate-keys.ts';
import { duplicateKeyErrors } from './validation.ts';

describe('duplicateKeyPaths', () => {
  it('finds none in JSON whose objects name each member once', () => {
    for (const text of [
      '{}',
      '[]',
      '"a"',
      '12',
      'null',
      '{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}',
      // The same name in sibling objects, and as a value, is no duplicate.
      '{"a":"a","b":["a","a"],"c":{"a":"b"}}',
    ]) {
      expect(duplicateKeyPaths(text), text).toEqual([]);
    }
  });

  it('names the path of the repeated member at any depth, arrays by index', () => {
    expect(duplicateKeyPaths('{"subject":{"ip_address":"52.95.110.77","ip_address":"81.2.69.142"}}')).toEqual(
      [['subject', 'ip_address']],
    );
    expect(duplicateKeyPaths('{"outcome":"confirmed_fraud","outcome":"not_fraud"}')).toEqual([['outcome']]);
    expect(duplicateKeyPaths('{"a":[1,{"x":1},[{"y":1,"y":2}]]}')).toEqual([['a', 2, 0, 'y']]);
    expect(duplicateKeyPaths('[{"k":1},{"k":1,"k":2}]')).toEqual([[1, 'k']]);
  });

  it('reports every repetition, a third one too', () => {
    expect(duplicateKeyPaths('{"a":1,"a":2,"b":{"c":1,"c":2},"a":3}')).toEqual([['a'], ['b', 'c'], ['a']]);
  });

  it('compares names after unescaping, as the parser does', () => {
    expect(duplicateKeyPaths('{"ab":1,"a\\u0062":2}')).toEqual([['ab']]);
    expect(duplicateKeyPaths('{"a\\/b":1,"a/b":2}')).toEqual([['a/b']]);
    expect(duplicateKeyPaths('{"\\ud83d\\ude00":1,"\u{1F600}":2}')).toEqual([['\u{1F600}']]);
    // Different after unescaping: not duplicates.
    expect(duplicateKeyPaths('{"a\\\\":1,"a\\"":2,"a":3}')).toEqual([]);
  });

  it('is not misled by quotes, braces and commas inside strings', () => {
    const text = JSON.stringify({ a: '{"a":1,"a":2}', b: 'x\\",', c: ['}', ']', ','], 'd"': 1 });
    expect(duplicateKeyPaths(text)).toEqual([]);
    expect(duplicateKeyPaths('{"q":"\\"","q":"\\\\"}')).toEqual([['q']]);
  });

  it('handles whitespace between tokens and a 64 KiB body in one pass', () => {
    expect(duplicateKeyPaths(' {\n "a" : 1 ,\t"a"\r: 2 } ')).toEqual([['a']]);
    const members = Array.from({ length: 4000 }, (_, i) => `"k${i}":${i}`).join(',');
    const started = performance.now();
    expect(duplicateKeyPaths(`{${members},"k0":0}`)).toEqual([['k0']]);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('duplicateKeyErrors', () => {
  it('gives one E_DUPLICATE_KEY item per repetition, field the dotted path', () => {
    expect(
      duplicateKeyErrors('{"context":{"geography":{"operating_countries":[],"operating_countries":[]}}}'),
    ).toEqual([
      {
        code: 'E_DUPLICATE_KEY',
        message: "'context.geography.operating_countries' is sent more than once; send each member once",
        field: 'context.geography.operating_countries',
      },
    ]);
  });

  it('escapes a name that is not storable and caps the list', () => {
    const [item] = duplicateKeyErrors('{"a\\u0000":1,"a\\u0000":2}');
    expect(item!.field).toBe('a\\u0000');
    const many = `{${Array.from({ length: 30 }, () => '"x":1').join(',')}}`;
    const items = duplicateKeyErrors(many);
    expect(items).toHaveLength(20);
    expect(items.at(-1)!.message).toMatch(/10 more errors omitted/);
  });
});
