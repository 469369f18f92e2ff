import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadResolutionData } from '../../resolution/resolution-data.ts';
import type { IpNetworks } from '../../resolution/ip-networks.ts';
import { addressKeyOf, resolveIp } from '../../resolution/ip.ts';
import { v4Bounds } from '../../resolution/ip-ranges.ts';
import { parseRangeFeed } from '../feeds/range-feed.ts';
import { buildRangeSet, kindAt } from '../../resolution/range-set.ts';
import {
  currentOperatorSpace,
  inOperatorSpace,
  operatorSpaceOf,
  OPERATOR_SPACE_RULE,
  prepareOperatorSpace,
} from './operator-space.ts';

/** A small fixture list (documentation addresses, not real exits): only the counts matter. */
function list(lines: string[]) {
  return buildRangeSet(parseRangeFeed(Buffer.from(`# as-of: 2026-11-01T00:00:00Z\n${lines.join('\n')}\n`)));
}

/** A routing table of two ASes: AS64500 on 192.0.2.0/24, AS64501 on 198.51.100.0/22 and 203.0.113.0/24. */
const tinyTable = {
  asnV4: {
    bounds: v4Bounds(
      Uint32Array.from([0xc0000200, 0xc6336400, 0xcb007100]),
      Uint32Array.from([0xc00002ff, 0xc63367ff, 0xcb0071ff]),
    ),
    asn: Uint32Array.from([64500, 64501, 64501]),
  },
} as unknown as IpNetworks;

const inSpace = (space: ReturnType<typeof operatorSpaceOf>, addr: string, asn?: number) =>
  inOperatorSpace(space, addressKeyOf(addr), asn);

describe('Tor-operator space from the exit list', () => {
  it('covers a /24 holding the least number of listed exits, and not one holding fewer', () => {
    const n = OPERATOR_SPACE_RULE.blockExits;
    const exits = list([
      ...Array.from({ length: n }, (_, i) => `192.0.2.${10 + i}`),
      ...Array.from({ length: n - 1 }, (_, i) => `198.51.100.${10 + i}`),
    ]);
    const space = operatorSpaceOf(exits);
    expect(inSpace(space, '192.0.2.200')).toBe(true);
    expect(inSpace(space, '198.51.100.200')).toBe(false);
    expect(inSpace(space, '192.0.3.1')).toBe(false);
  });

  it('covers an IPv6 /48 holding the least number of listed exits', () => {
    const exits = list(['2001:db8:1::1', '2001:db8:1:5::2', '2001:db8:1:ff::3', '2001:db8:2::1']);
    const space = operatorSpaceOf(exits);
    expect(inSpace(space, '2001:db8:1:abcd::9')).toBe(true);
    expect(inSpace(space, '2001:db8:2::9')).toBe(false);
  });

  it('covers the whole AS whose listed exits are a large enough share of its addresses', () => {
    // AS64501 (1,280 addresses): 3 exits are 0.2 % of it, under the share; 26 are 2.03 %.
    const spread = list(['192.0.2.1', '198.51.100.1', '198.51.101.1', '198.51.102.1']);
    expect(operatorSpaceOf(spread, tinyTable).ases.size).toBe(0);
    const dense = list(Array.from({ length: 26 }, (_, i) => `198.51.100.${i + 1}`));
    const space = operatorSpaceOf(dense, tinyTable);
    expect([...space.ases]).toEqual([64501]);
    // Another network of the same AS, where the list names no exit.
    expect(inSpace(space, '203.0.113.77', 64501)).toBe(true);
    expect(inSpace(space, '203.0.113.77', 64500)).toBe(false);
    // Without the routing table, the blocks only.
    expect(operatorSpaceOf(dense).ases.size).toBe(0);
  });

  it('is prepared ahead of a swap, in slices, into the space the first lookup then finds', async () => {
    const dense = list(Array.from({ length: 26 }, (_, i) => `198.51.100.${i + 1}`));
    await prepareOperatorSpace(dense, tinyTable);
    expect(currentOperatorSpace(dense, tinyTable)).toEqual(operatorSpaceOf(dense, tinyTable));
  });

  it('ignores a listed range larger than a /24: listed space, not exits', () => {
    expect(operatorSpaceOf(list(['192.0.2.0/23'])).v4Blocks.size).toBe(0);
  });
});

describe('Tor-operator space of the shipped list (infra/feeds/tor-exits.txt)', () => {
  const exits = buildRangeSet(
    parseRangeFeed(readFileSync(new URL('../../../infra/feeds/tor-exits.txt', import.meta.url))),
  );
  const { networks } = loadResolutionData();
  const space = operatorSpaceOf(exits, networks);
  const check = (addr: string) => {
    const facts = resolveIp(addr, networks);
    expect(kindAt(exits, addressKeyOf(addr)), `${addr} is not on the list`).toBe(0);
    return inSpace(space, addr, facts.asn ? Number(facts.asn.slice(2)) : undefined);
  };

  // Unlisted addresses in long-standing exit operators' networks: Stiftung Erneuerbare Freiheit,
  // Foundation for Applied Privacy, DFRI, and Quintex (a /24 of its AS where the list names none).
  it.each(['185.220.101.250', '109.70.100.50', '171.25.193.200', '204.8.99.20'])('covers %s', (addr) => {
    expect(check(addr)).toBe(true);
  });

  // An ISP's subscriber, a public resolver, and a hosting /24 where the list names one exit.
  it.each(['81.2.69.142', '8.8.8.8', '5.45.102.94'])('does not cover %s', (addr) => {
    expect(check(addr)).toBe(false);
  });
});
