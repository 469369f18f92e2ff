import { describe, expect, it } from 'vitest';
import { AsNames } from './as-names.ts';
import { decodeSections, encodeSections, type Table } from './codec.ts';
import { networksFrom } from './resolution-cache.ts';

const MAGIC = 0x54534554;

/** The smallest set of network tables `networksFrom` accepts, with `extra` arrays beside them. */
function tablesWith(header: object, extra: Record<string, Table>) {
  const v4 = { starts: new Uint32Array(0), ends: new Uint32Array(0) };
  const v6 = {
    startHi: new BigUint64Array(0),
    startLo: new BigUint64Array(0),
    endHi: new BigUint64Array(0),
    endLo: new BigUint64Array(0),
  };
  const arrays = {
    ...Object.fromEntries(
      ['asnV4', 'countryV4'].flatMap((p) => [
        [`${p}.starts`, v4.starts],
        [`${p}.ends`, v4.ends],
      ]),
    ),
    ...Object.fromEntries(
      ['asnV6', 'countryV6'].flatMap((p) => Object.entries(v6).map(([k, a]) => [`${p}.${k}`, a])),
    ),
    'asnV4.asn': new Uint32Array(0),
    'asnV6.asn': new Uint32Array(0),
    'countryV4.country': new Uint16Array(0),
    'countryV6.country': new Uint16Array(0),
    ...extra,
  };
  return decodeSections(MAGIC, encodeSections(MAGIC, header, arrays))!;
}

describe('AsNames', () => {
  const pairs: [number, string][] = [
    [64500, 'Ünïcode Networks'],
    [13335, 'CLOUDFLARENET'],
    [4294967295, ''],
    [13335, 'a later name for the same AS'],
  ];

  it('answers as a Map of the first name given per AS would', () => {
    const names = AsNames.from(pairs);
    const map = new Map<number, string>();
    for (const [asn, name] of pairs) if (!map.has(asn)) map.set(asn, name);
    expect(names.size).toBe(map.size);
    for (const [asn, name] of map) {
      expect(names.get(asn)).toBe(name);
      expect(names.has(asn)).toBe(true);
    }
    expect(names.get(1)).toBeUndefined();
    expect(names.has(64501)).toBe(false);
    expect([...names]).toEqual([...map].sort((a, b) => a[0] - b[0]));
  });

  it('is stored as typed arrays and read back from them, without a header', () => {
    const decoded = tablesWith({}, AsNames.from(pairs).arrays('asNames'));
    const read = networksFrom(decoded, 'test').asNames;
    expect([...read]).toEqual([...AsNames.from(pairs)]);
  });

  it('still reads the names of tables written before, a JSON list in the header', () => {
    const decoded = tablesWith({ asNames: pairs }, {});
    expect(networksFrom(decoded, 'test').asNames.get(64500)).toBe('Ünïcode Networks');
    expect(() => networksFrom(tablesWith({}, {}), 'old tables')).toThrow('old tables: AS names are missing');
  });

  it('refuses offsets that do not fit its numbers and text', () => {
    expect(() => new AsNames(new Uint32Array([1]), new Uint32Array([0, 9]), new Uint8Array(3))).toThrow(
      /offsets do not match/,
    );
  });
});
