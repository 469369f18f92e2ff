import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ASN_OVERRIDES_FILE, parseAsnOverrides } from './asn-overrides.ts';

describe('parseAsnOverrides', () => {
  it('reads asn,type,operator lines, the operator being the rest of the line', () => {
    const table = parseAsnOverrides(
      '# as-of: 2026-11-25T00:00:00Z\n\n63949,hosting,Akamai, Linode\n4134,isp,Chinanet\n',
    );
    expect([...table]).toEqual([
      [63949, { type: 'hosting', operator: 'Akamai, Linode' }],
      [4134, { type: 'isp', operator: 'Chinanet' }],
    ]);
  });

  it('refuses a malformed line, an unknown type and an AS listed twice', () => {
    expect(() => parseAsnOverrides('AS4134,isp,Chinanet')).toThrow(/line 1/);
    expect(() => parseAsnOverrides('4134,isp,')).toThrow(/line 1/);
    expect(() => parseAsnOverrides('4134,unknown,Chinanet')).toThrow(/line 1/);
    expect(() => parseAsnOverrides('4134,telco,Chinanet')).toThrow(/line 1/);
    expect(() => parseAsnOverrides('4134,isp,Chinanet\n4134,mobile,Chinanet')).toThrow(
      /AS4134 is listed twice/,
    );
  });

  it('parses the checked-in file, which is dated and keeps the earlier hand-picked networks', () => {
    const text = readFileSync(ASN_OVERRIDES_FILE, 'utf8');
    expect(text).toMatch(/^# as-of: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/m);
    const table = parseAsnOverrides(text);
    expect(table.size).toBeGreaterThan(1000);
    for (const asn of [16509, 15169, 8075, 14061, 16276, 24940, 63949, 20473, 13335, 36351, 54113])
      expect(table.get(asn)?.type, `AS${asn}`).toBe('hosting');
    for (const asn of [21928, 22394, 20057, 9605, 55836, 16135, 31213, 44244])
      expect(table.get(asn)?.type, `AS${asn}`).toBe('mobile');
  });
});
