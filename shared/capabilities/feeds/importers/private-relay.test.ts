import { describe, expect, it } from 'vitest';
import { parseRangeFeed } from '../range-feed.ts';
import { VPN_PROXY_KINDS } from '../../ip-vpn-proxy/index.ts';
import { recognise } from './formats.ts';
import { importPrivateRelayEgress } from './private-relay.ts';

const FETCHED = new Date('2026-11-27T12:00:00Z');
// A format sample of Apple's egress-ip-ranges.csv: a few of its lines, not the list.
const SAMPLE = [
  '104.28.28.0/26,GB,GB-EN,London,',
  '104.28.28.64/29,GB,GB-EN,London,',
  '2a02:26f7:b3c0:4000::/64,DE,DE-BE,Berlin,',
  '104.28.28.0/26,GB,GB-EN,London,',
  '',
].join('\n');

describe('iCloud Private Relay egress list', () => {
  it('is recognised by its file name, from a URL path too', () => {
    expect(recognise('https://mask-api.icloud.com/egress-ip-ranges.csv')?.feed).toBe('vpnProxy');
  });

  it('becomes relay ranges named for the service, each once', () => {
    const feed = importPrivateRelayEgress(Buffer.from(SAMPLE), FETCHED);
    expect(feed.lines).toEqual([
      '104.28.28.0/26,relay # iCloud Private Relay',
      '104.28.28.64/29,relay # iCloud Private Relay',
      '2a02:26f7:b3c0:4000::/64,relay # iCloud Private Relay',
    ]);
    expect(feed.asOf).toEqual(FETCHED);
    expect(parseRangeFeed(Buffer.from(feed.text), VPN_PROXY_KINDS).map((e) => e.kind)).toEqual([3, 3, 3]);
  });

  it('refuses a line that is not a prefix, or one wider than a provider block, with its number', () => {
    expect(() => importPrivateRelayEgress(Buffer.from('104.28.28.0/26,GB,,,\n<html>\n'), FETCHED)).toThrow(
      'line 2',
    );
    expect(() => importPrivateRelayEgress(Buffer.from('0.0.0.0/0,GB,,,\n'), FETCHED)).toThrow('line 1');
  });
});
