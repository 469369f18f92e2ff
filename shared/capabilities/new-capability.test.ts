import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.ts';
import type { IpFacts } from '../resolution/ip.ts';
import { gatherEvidence } from '../scoring/evidence.ts';
import { score } from '../scoring/engine.ts';
import { replay } from '../scoring/replay.ts';
import { tierEvidence } from '../scoring/tier-evidence.ts';
import { COMPONENT_KEYS, REASON_CODES, type ReasonCode } from '../scoring/reason-codes.ts';
import { lowestTierWith } from '../scoring/tiers.ts';
import { readLock } from '../scoring/version-files.ts';
import { DEFAULT_VERSION, SCORE_VERSIONS } from '../scoring/versions.ts';
import { kindAt, type RangeSet } from '../resolution/range-set.ts';
import { CAPABILITY_BY_NAME, FEED_OWNER, FEEDS } from './registry.ts';
import { buildSnapshot, decodeSnapshot, type SnapshotName } from './snapshots.ts';
import { feedLocations, fetchFeed } from './sources.ts';
import { byteLimit } from './bounded-read.ts';
import { compileCorrections } from './corrections.ts';
import { COMPONENTS_OF_FLAG } from './flags.ts';
import { recognise } from './feeds/importers/formats.ts';
import { FEED_LIMITS } from './registry.ts';
import { fetchSourceFeed } from './source-fetch.ts';

// A capability added after every version was released, defined in one place with its own feed and
// source, and registered the way a real one is: one more entry in the list of
// shared/capabilities/index.ts. Its seed is a two-line test fixture written here.
const { addedLater, seed, published } = await vi.hoisted(async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const seed = join(mkdtempSync(join(tmpdir(), 'frs-added-')), 'added-list.txt');
  writeFileSync(seed, '# as-of: 2026-11-20T00:00:00Z\n# test fixture\n192.0.2.10\n198.51.100.0/24\n');
  // Its publisher's file, in a format of its own: `address,first seen` with a header line.
  const published = join(mkdtempSync(join(tmpdir(), 'frs-added-pub-')), 'added-list.csv');
  writeFileSync(published, 'address,first_seen\n192.0.2.10,2026-11-01\n192.0.2.77,2026-11-02\n');
  const { addedLaterCapability } = await import('../../test/helpers/added-later-capability.ts');
  const def = addedLaterCapability(seed);
  return { addedLater: def, seed, published };
});
vi.mock('./index.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('./index.ts')>();
  return { ...real, CAPABILITY_DEFINITIONS: [...real.CAPABILITY_DEFINITIONS, addedLater] };
});

const LISTED = 'IP_ADDED_LISTED' as ReasonCode;
const listedIp: IpFacts = {
  address: '192.0.2.10',
  version: 4,
  bogon: false,
  range: 'unicast',
  asn: 'AS64500',
  as_type: 'isp',
  hosting: false,
  vpn: false,
  proxy: false,
  tor: false,
};

const addedSet = (text: string) => {
  const name = 'ip_added_later' as SnapshotName;
  return decodeSnapshot(name, buildSnapshot(name, { addedList: new Map([['', Buffer.from(text)]]) }).payload);
};

describe('a capability added in one folder and one line', () => {
  it('sets its address flag, which another list cannot lower, and a correction is reported under it', () => {
    const vpnListWithout = decodeSnapshot(
      'ip_vpn_proxy',
      buildSnapshot('ip_vpn_proxy', {
        vpnProxy: new Map([['', Buffer.from('# as-of: 2026-11-20T00:00:00Z\n203.0.113.0/24,vpn\n')]]),
      }).payload,
    );
    const data = { ip_vpn_proxy: vpnListWithout, ip_added_later: addedSet('81.2.69.0/24\n') };
    const ip = gatherEvidence({ ip_address: '81.2.69.142' }, { data }).ip!;
    expect(ip).toMatchObject({ proxy: true, vpn: false });
    expect(gatherEvidence({ ip_address: '81.2.70.1' }, { data }).ip).toMatchObject({ proxy: false });
    expect(COMPONENTS_OF_FLAG.get('proxy')).toEqual(['ip_vpn_proxy', 'ip_added_later']);
    const corrections = compileCorrections('1', [
      {
        target: '81.2.69.0/24',
        flag: 'proxy',
        value: false,
        reason: 'a test office',
        operator: 'ops@example.org',
        at: '2026-11-27T00:00:00.000Z',
      },
    ]);
    const corrected = gatherEvidence({ ip_address: '81.2.69.142' }, { data, corrections });
    expect(corrected.ip).toMatchObject({ proxy: false, corrected: ['proxy'] });
    expect(score({ evidence: corrected, version: DEFAULT_VERSION }).corrections).toEqual([
      { component: 'ip_vpn_proxy', flag: 'proxy', value: false },
      { component: 'ip_added_later', flag: 'proxy', value: false },
    ]);
  });

  it('joins the component keys, reason codes, registry and tiers', () => {
    expect(Object.keys(COMPONENT_KEYS).at(-1)).toBe('ip_added_later');
    expect(REASON_CODES).toMatchObject(addedLater.codes);
    // SOURCE_UNAVAILABLE, which any component can give, stays last.
    expect(Object.keys(REASON_CODES).at(-1)).toBe('SOURCE_UNAVAILABLE');
    expect(CAPABILITY_BY_NAME.get('ip_added_later')).toMatchObject({ kind: 'snapshot', subject: 'ip' });
    expect(lowestTierWith('ip_added_later')).toBe('assess');
  });

  it('brings its own feed: registry, FEED_* variable, default location, schedule and maximum age', () => {
    expect(FEEDS.addedList).toBe(addedLater.sources.addedList);
    expect(FEED_OWNER.get('addedList')).toBe('ip_added_later');
    expect(CAPABILITY_BY_NAME.get('ip_added_later')).toMatchObject({
      feeds: ['addedList'],
      refreshEveryS: 3 * 3600,
      maxDataAgeS: 2 * 86_400,
    });
    expect(feedLocations(loadConfig({})).addedList).toBe(seed);
    expect(
      feedLocations(loadConfig({ FEED_ADDED_LIST: 'https://mirror.example.invalid/a.txt' })).addedList,
    ).toBe('https://mirror.example.invalid/a.txt');
    expect(() => loadConfig({ FEED_ADDED_LIST: '' })).toThrow(/FEED_ADDED_LIST/);
  });

  it('brings its publisher format and limits: recognised, bounded and imported by the refresher', async () => {
    const url = 'https://lists.example.invalid/added-list.csv';
    expect(recognise(url)).toMatchObject({ name: 'added list CSV', feed: 'addedList' });
    expect(byteLimit('addedList', url)).toBe(4096);
    expect(byteLimit('addedList', '/srv/feeds/added-list.txt')).toBe(65_536);
    expect(FEED_LIMITS.addedList).toBe(addedLater.sources.addedList!.limits);
    const fetched = await fetchSourceFeed('addedList', published, {
      timeoutMs: 1000,
      known: {},
      now: new Date(),
    });
    const text = fetched.files!.get('')!.toString('utf8');
    expect(text).toMatch(/^# as-of: /);
    expect(text).toContain('\n192.0.2.77\n');
    const name = 'ip_added_later' as SnapshotName;
    expect(buildSnapshot(name, { addedList: fetched.files! }).entries).toBe(2);
  });

  it('is fetched from its seed and built into its snapshot as the refresher does', async () => {
    const name = 'ip_added_later' as SnapshotName;
    const fetched = await fetchFeed('addedList', feedLocations(loadConfig({})).addedList!, 1000);
    const built = buildSnapshot(name, { addedList: fetched });
    expect(built.entries).toBe(2);
    const set = decodeSnapshot(name, built.payload);
    const ip = gatherEvidence({ ip_address: '198.51.100.7' }, { data: { ip_added_later: set } }).ip!;
    const found = score({ evidence: { ip, data: { ip_added_later: set } }, version: DEFAULT_VERSION });
    expect(found.components.find((c) => c.component === 'ip_added_later')?.detail).toBe('IP_ADDED_LISTED');
  });

  it('builds and decodes its snapshot through the snapshot dispatch', () => {
    const name = 'ip_added_later' as SnapshotName;
    const built = buildSnapshot(name, { addedList: new Map([['', Buffer.from('192.0.2.10\n')]]) });
    expect(built.entries).toBe(1);
    const set = decodeSnapshot(name, built.payload) as RangeSet;
    expect(kindAt(set, { v4: 0xc000020a })).toBe(1);
    expect(kindAt(set, { v4: 0xc000020b })).toBe(0);
  });

  it('leaves every released version and its hash as they were', () => {
    const lock = readLock();
    for (const v of SCORE_VERSIONS) {
      expect(v.hash, v.id).toBe(lock[v.id]);
      expect(v.points, v.id).not.toHaveProperty(LISTED);
    }
  });

  it('appears in a score from its own data: its points in a version that names its code, 0 in one that does not', () => {
    const name = 'ip_added_later' as SnapshotName;
    const set = decodeSnapshot(
      name,
      buildSnapshot(name, { addedList: new Map([['', Buffer.from('192.0.2.10\n')]]) }).payload,
    );
    const evidence = { ip: listedIp, data: { ip_added_later: set } };
    const released = score({ evidence, version: DEFAULT_VERSION });
    const naming = score({
      evidence,
      version: { ...DEFAULT_VERSION, points: { ...DEFAULT_VERSION.points, [LISTED]: 30 } },
    });
    // Another address is not on its list; without its data loaded it has nothing to say.
    const other = score({
      evidence: { ...evidence, ip: { ...listedIp, address: '192.0.2.11' } },
      version: DEFAULT_VERSION,
    });
    expect(other.components.find((c) => c.component === 'ip_added_later')?.detail).toBe('IP_ADDED_UNLISTED');
    const unloaded = score({ evidence: { ip: listedIp }, version: DEFAULT_VERSION });
    expect(unloaded.components.map((c) => c.component)).not.toContain('ip_added_later');
    // After the other address components: the address's components keep their order.
    expect(released.components.map((c) => c.component)).toEqual([
      'ip_network_type',
      'ip_tor_exit',
      'ip_vpn_proxy',
      'ip_added_later',
    ]);
    const added = (s: typeof released) => s.components.find((c) => c.component === 'ip_added_later');
    expect(added(released)).toEqual({
      component: 'ip_added_later',
      verdict: 'elevated',
      contribution: 0,
      detail: LISTED,
    });
    expect(added(naming)).toMatchObject({ verdict: 'elevated', contribution: 30, detail: LISTED });
    expect(naming.raw).toBe(released.raw + 30);
  });

  it('replays a retained score that carries its code, for a tier that sees it and one that does not', () => {
    const name = 'ip_added_later' as SnapshotName;
    const set = decodeSnapshot(
      name,
      buildSnapshot(name, { addedList: new Map([['', Buffer.from('192.0.2.10\n')]]) }).payload,
    );
    const version = { ...DEFAULT_VERSION, points: { ...DEFAULT_VERSION.points, [LISTED]: 30 } };
    const scored = score({ evidence: { ip: listedIp, data: { ip_added_later: set } }, version });
    expect(scored.fired).toContain(LISTED);
    for (const tier of ['verify', 'assess'] as const) {
      const sig = {
        components: tierEvidence(scored, tier).components,
        fired: scored.fired,
        reports: 0,
        context: false,
      };
      expect(replay(sig, version), tier).toMatchObject({
        raw: scored.raw,
        score: scored.score,
        band: scored.band,
      });
    }
  });
});
