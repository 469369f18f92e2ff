import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRangeFeed } from '../range-feed.ts';
import { VPN_PROXY_KINDS } from '../../ip-vpn-proxy/index.ts';
import { recognise } from './formats.ts';
import { importPrivateRelayEgress } from './private-relay.ts';

const FETCHED = new Date('2026-11-27T12:00:00Z');
// A verbatim excerpt of Apple's egress-ip-ranges.csv: its first and last 10 lines
// (test/fixtures/publishers/PROVENANCE.md).
const EXCERPT = readFileSync(
  join(import.meta.dirname, '../../../../test/fixtures/publishers/apple/egress-ip-ranges.csv'),
);

describe('iCloud Private Relay egress list', () => {
  it('is recognised by its file name, from a URL path too', () => {
    expect(recognise('https://mask-api.icloud.com/egress-ip-ranges.csv')?.feed).toBe('vpnProxy');
  });

  it('becomes relay ranges named for the service, each once, the last line without a newline', () => {
    const feed = importPrivateRelayEgress(Buffer.concat([EXCERPT, Buffer.from('\n'), EXCERPT]), FETCHED);
    expect(feed.lines).toHaveLength(20);
    expect(feed.lines[0]).toBe('172.224.226.0/27,relay # iCloud Private Relay');
    expect(feed.lines.at(-1)).toBe('146.75.253.254/31,relay # iCloud Private Relay');
    expect(feed.asOf).toEqual(FETCHED);
    expect(parseRangeFeed(Buffer.from(feed.text), VPN_PROXY_KINDS).every((e) => e.kind === 3)).toBe(true);
  });

  it('refuses a line that is not a prefix, or one wider than a provider block, with its number', () => {
    expect(() => importPrivateRelayEgress(Buffer.from('104.28.28.0/26,GB,,,\n<html>\n'), FETCHED)).toThrow(
      'line 2',
    );
    expect(() => importPrivateRelayEgress(Buffer.from('0.0.0.0/0,GB,,,\n'), FETCHED)).toThrow('line 1');
  });
});
