import { describe, expect, it } from 'vitest';
import { bodyFingerprint, canonicalJson } from './fingerprint.ts';

describe('canonical body fingerprint', () => {
  it('ignores key order and whitespace at every depth', () => {
    const a = {
      subject: { phone_number: '+447911123456', ip_address: '1.1.1.1' },
      options: { explain: true },
    };
    const b = JSON.parse(
      '{ "options": {"explain":true}, "subject": {"ip_address":"1.1.1.1","phone_number":"+447911123456"} }',
    );
    expect(canonicalJson(b)).toBe(
      '{"options":{"explain":true},"subject":{"ip_address":"1.1.1.1","phone_number":"+447911123456"}}',
    );
    expect(bodyFingerprint(a)).toBe(bodyFingerprint(b));
  });

  it('tells different values, array orders and types apart', () => {
    const base = bodyFingerprint({ subject: { ip_address: '1.1.1.1' }, tags: ['a', 'b'] });
    expect(bodyFingerprint({ subject: { ip_address: '1.1.1.2' }, tags: ['a', 'b'] })).not.toBe(base);
    expect(bodyFingerprint({ subject: { ip_address: '1.1.1.1' }, tags: ['b', 'a'] })).not.toBe(base);
    expect(bodyFingerprint({ n: 1 })).not.toBe(bodyFingerprint({ n: '1' }));
    expect(bodyFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });
});
