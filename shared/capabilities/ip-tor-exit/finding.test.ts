import { describe, expect, it } from 'vitest';
import type { IpFacts } from '../../resolution/ip.ts';
import type { Evidence } from '../evidence.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { buildRangeSet } from '../../resolution/range-set.ts';
import { torExitFinding } from './finding.ts';

// A fixture list (documentation addresses): three exits in 192.0.2.0/24 make it operator space.
const exits = buildRangeSet(
  parseRangeFeed(Buffer.from('# as-of: 2026-11-01T00:00:00Z\n192.0.2.1\n192.0.2.2\n192.0.2.3\n')),
);
const ip = (address: string, tor = false): IpFacts => ({
  address,
  version: 4,
  bogon: false,
  range: 'unicast',
  hosting: false,
  vpn: false,
  proxy: false,
  tor,
});
const find = (facts: IpFacts, stale = false) => {
  const evidence: Evidence = { ip: facts, ...(stale ? { stale: new Set(['ip_tor_exit']) } : {}) };
  return torExitFinding(evidence, exits);
};

describe('the Tor exit finding', () => {
  it('is adverse for a listed exit, stale list or not', () => {
    expect(find(ip('192.0.2.1', true))).toEqual({ verdict: 'adverse', detail: 'IP_TOR_EXIT' });
    expect(find(ip('192.0.2.1', true), true)).toEqual({ verdict: 'adverse', detail: 'IP_TOR_EXIT' });
  });

  it('is elevated for an unlisted address in Tor-operator space, stale list or not', () => {
    const elevated = { verdict: 'elevated', detail: 'IP_TOR_OPERATOR_NETWORK' };
    expect(find(ip('192.0.2.99'))).toEqual(elevated);
    expect(find(ip('192.0.2.99'), true)).toEqual(elevated);
  });

  it('vouches for any other address only while the list is within its maximum age', () => {
    expect(find(ip('198.51.100.7'))).toEqual({ verdict: 'clean', detail: 'IP_NOT_ANONYMISED' });
    expect(find(ip('198.51.100.7'), true)).toEqual({
      verdict: 'no_match',
      detail: 'IP_ANONYMISER_LIST_STALE',
    });
  });

  it('says nothing of operator space without the list', () => {
    expect(torExitFinding({ ip: ip('192.0.2.99') }, undefined)).toEqual({
      verdict: 'clean',
      detail: 'IP_NOT_ANONYMISED',
    });
  });
});
