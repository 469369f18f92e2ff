import { describe, expect, it } from 'vitest';
import { formEncodingError, verifyFormEncoding } from './form-encoding.ts';

const utf8 = (s: string) => formEncodingError(Buffer.from(s, 'latin1'), 'utf-8');

describe('formEncodingError', () => {
  it('accepts what a browser sends', () => {
    for (const body of [
      '',
      '_csrf=abc&label=ordinary',
      'label=caf%C3%A9+au+lait',
      `label=${encodeURIComponent('\u{1F600} 100% & more')}`,
      'a=%25%26%3D%2B',
    ])
      expect(utf8(body), body).toBeUndefined();
  });

  it('refuses a percent-encoding that is not UTF-8: a lone surrogate, a stray byte, a cut sequence', () => {
    for (const body of ['label=a%ED%A0%80b', 'label=%FF', 'label=%C3', 'a=%E2%82&b=%AC', 'label=%C0%AF'])
      expect(utf8(body), body).toMatch(/not UTF-8/);
  });

  it('refuses a % that starts no percent-encoding', () => {
    for (const body of ['label=100%', 'label=%ZZ', 'label=%4', 'label=a%+b'])
      expect(utf8(body), body).toMatch(/%/);
  });

  it('refuses raw bytes that are not UTF-8', () => {
    expect(formEncodingError(Buffer.from([0x61, 0x3d, 0xff]), 'utf-8')).toBe('the form is not UTF-8');
  });

  it('in ISO-8859-1 every byte is a character, but a bare % is still wrong', () => {
    expect(formEncodingError(Buffer.from('label=caf%E9', 'latin1'), 'iso-8859-1')).toBeUndefined();
    expect(formEncodingError(Buffer.from([0x61, 0x3d, 0xe9]), 'iso-8859-1')).toBeUndefined();
    expect(formEncodingError(Buffer.from('label=%G0', 'latin1'), 'iso-8859-1')).toMatch(/%/);
  });
});

describe('verifyFormEncoding', () => {
  it('throws a 400 for a refused body and nothing for a good one', () => {
    expect(() => verifyFormEncoding({}, {}, Buffer.from('label=ok'), 'utf-8')).not.toThrow();
    expect(() => verifyFormEncoding({}, {}, Buffer.from('label=a%ED%A0%80b'), 'utf-8')).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});
