/**
 * `node shared/scoring/calibration/measure-tor-operator-space.ts [--held-out <exit list>]`: how
 * the Tor-operator space rule (capabilities/ip-tor-exit/operator-space.ts) does on the shipped
 * exit list, the figures in docs/capabilities.md ("Tor-operator space"). It scores, so it sits
 * in the scoring layer beside calibration, above the capability whose rule it measures.
 *
 * - The space: its /24s, its ASes and how many addresses they cover.
 * - Leave one out: each listed exit in a /24 with another listed exit, taken off the list; is it
 *   still covered by the space the rest of the list shows? Operators are split in two halves by
 *   AS number parity, so a threshold chosen on one half is checked on the other.
 * - `--held-out`: an exit list of another date (one address per line, `#` comments). Its exits
 *   that the shipped list does not name are exits the list missed: how many the space covers, and
 *   their bands under the default version and the version before it.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadResolutionData } from '../../resolution/resolution-data.ts';
import { addressKeyOf, resolveIp } from '../../resolution/ip.ts';
import { calibrationSources } from './build.ts';
import { score } from '../engine.ts';
import { gatherEvidence } from '../evidence.ts';
import { DEFAULT_VERSION, SCORE_VERSIONS } from '../versions.ts';
import { parseRangeFeed } from '../../capabilities/feeds/range-feed.ts';
import { buildRangeSet, kindAt } from '../../resolution/range-set.ts';
import {
  inOperatorSpace,
  operatorSpaceOf,
  OPERATOR_SPACE_RULE,
} from '../../capabilities/ip-tor-exit/operator-space.ts';

const SHIPPED = new URL('../../../infra/feeds/tor-exits.txt', import.meta.url);

function addresses(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => l.length > 0 && !l.includes('/') && !l.includes(':'));
}

const asnOf = (networks: ReturnType<typeof loadResolutionData>['networks'], addr: string) => {
  const asn = resolveIp(addr, networks).asn;
  return asn === undefined ? undefined : Number(asn.slice(2));
};

function main(): void {
  const { values } = parseArgs({ options: { 'held-out': { type: 'string' } } });
  const { networks } = loadResolutionData();
  const shippedText = readFileSync(SHIPPED, 'utf8');
  const shipped = addresses(shippedText);
  const exits = buildRangeSet(parseRangeFeed(Buffer.from(shippedText)));
  const space = operatorSpaceOf(exits, networks);
  let asAddresses = 0;
  for (let i = 0; i < networks.asnV4.asn.length; i++)
    if (space.ases.has(networks.asnV4.asn[i]!))
      asAddresses += networks.asnV4.bounds.ends[i]! - networks.asnV4.bounds.starts[i]! + 1;
  console.log(`rule ${JSON.stringify(OPERATOR_SPACE_RULE)} on ${shipped.length} listed exits`);
  console.log(
    `space: ${space.v4Blocks.size} /24s (${space.v4Blocks.size * 256} addresses), ${space.ases.size} ASes (${asAddresses} addresses): ` +
      [...space.ases].map((a) => `AS${a} ${networks.asNames.get(a) ?? '?'}`).join('; '),
  );

  const per24 = new Map<string, number>();
  for (const a of shipped) per24.set(a.replace(/\.\d+$/, ''), (per24.get(a.replace(/\.\d+$/, '')) ?? 0) + 1);
  const halves = [
    { tried: 0, covered: 0 },
    { tried: 0, covered: 0 },
  ];
  for (const addr of shipped) {
    if (per24.get(addr.replace(/\.\d+$/, ''))! < 2) continue;
    const rest = buildRangeSet(parseRangeFeed(Buffer.from(shipped.filter((a) => a !== addr).join('\n'))));
    const asn = asnOf(networks, addr);
    const half = halves[(asn ?? 0) % 2]!;
    half.tried++;
    if (inOperatorSpace(operatorSpaceOf(rest, networks), addressKeyOf(addr), asn)) half.covered++;
  }
  halves.forEach((h, i) =>
    console.log(
      `leave one out, ${i === 0 ? 'even' : 'odd'} AS numbers: ${h.covered}/${h.tried} listed exits in shared /24s still covered`,
    ),
  );

  if (!values['held-out']) return;
  const listed = new Set(shipped);
  const missed = addresses(readFileSync(values['held-out'], 'utf8')).filter((a) => !listed.has(a));
  const covered = missed.filter(
    (a) =>
      kindAt(exits, addressKeyOf(a)) === 0 && inOperatorSpace(space, addressKeyOf(a), asnOf(networks, a)),
  );
  console.log(
    `held-out: ${missed.length} exits not on the shipped list, ${covered.length} in operator space`,
  );
  const sources = calibrationSources();
  const before = SCORE_VERSIONS.filter((v) => v.status === 'live' && v !== DEFAULT_VERSION).at(-1)!;
  const bandsOf = (subjects: string[], version: typeof DEFAULT_VERSION) => {
    const bands: Record<string, number> = {};
    for (const a of subjects) {
      const band = score({ evidence: gatherEvidence({ ip_address: a }, sources), version }).band;
      bands[band] = (bands[band] ?? 0) + 1;
    }
    return JSON.stringify(bands);
  };
  for (const version of [before, DEFAULT_VERSION]) {
    console.log(
      `bands under ${version.id}: all held-out ${bandsOf(missed, version)}, those in operator space ${bandsOf(covered, version)}`,
    );
  }
}

if (import.meta.main) main();
