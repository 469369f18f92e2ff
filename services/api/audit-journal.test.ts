import { describe, expect, it } from 'vitest';
import { parseSegment } from './audit-journal.ts';

describe('journal segment lines', () => {
  it('keeps the topic of a record published to another topic, and the default one otherwise', () => {
    const text = 'sc_1\t{"a":"x y"}\n' + 'oc_2\t{"b":1}\toutcomes.v1\n' + 'sc_3\t{"torn":'; // a crash tore the last line
    expect(parseSegment(text)).toEqual([
      { key: 'sc_1', value: '{"a":"x y"}' },
      { key: 'oc_2', value: '{"b":1}', topic: 'outcomes.v1' },
    ]);
  });
});
