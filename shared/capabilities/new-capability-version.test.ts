import { describe, expect, it, vi } from 'vitest';
import type { IpFacts } from '../resolution/ip.ts';
import { bootstrapCalibration, calibrationSources } from '../scoring/calibration/build.ts';
import { score } from '../scoring/engine.ts';
import { replay } from '../scoring/replay.ts';
import { tierEvidence } from '../scoring/tier-evidence.ts';
import { readLock, resolveVersion } from '../scoring/version-files.ts';
import { VERSION_DEFINITIONS, versionsWith, type VersionDefinition } from '../scoring/weights.ts';
import { buildSnapshot, decodeSnapshot, type SnapshotName } from './snapshots.ts';

// A capability added after every release that brings its points in a candidate version of its own,
// all in its definition: the version's points, caps and gates come from the version it names, and
// its calibration and lock entry are what `npm run calibrate` generates. Nothing else is edited.
const CANDIDATE = '2026.12.90';
const { addedLater } = await vi.hoisted(async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const seed = join(mkdtempSync(join(tmpdir(), 'frs-added-')), 'added-list.txt');
  writeFileSync(seed, '# as-of: 2026-11-20T00:00:00Z\n# test fixture\n192.0.2.10\n198.51.100.0/24\n');
  const { addedLaterCapability } = await import('../../test/helpers/added-later-capability.ts');
  const def = {
    ...addedLaterCapability(seed),
    versions: [{ id: '2026.12.90', from: '2026.12.3', description: 'The added list scored.' }],
    points: { '2026.12.90': { IP_ADDED_LISTED: 30 } },
  };
  return { addedLater: def };
});
vi.mock('./index.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('./index.ts')>();
  return { ...real, CAPABILITY_DEFINITIONS: [...real.CAPABILITY_DEFINITIONS, addedLater] };
});

const byId = (id: string) => VERSION_DEFINITIONS.find((d) => d.id === id)!;

describe('a capability that brings its points in a candidate version of its own', () => {
  it('adds the candidate: the version it names, plus its points, and nothing else changes', () => {
    const base = byId('2026.12.3');
    const candidate = byId(CANDIDATE);
    expect(VERSION_DEFINITIONS.at(-1)).toBe(candidate);
    expect(candidate).toEqual({
      ...base,
      id: CANDIDATE,
      status: 'candidate',
      points: { ...base.points, IP_ADDED_LISTED: 30 },
    });
    // The released versions are as written and locked.
    expect(base.points).not.toHaveProperty('IP_ADDED_LISTED');
    expect(Object.keys(readLock())).not.toContain(CANDIDATE);
  });

  it('refuses to start until calibrate has generated its files, and names the command', async () => {
    await expect(import('../scoring/versions.ts')).rejects.toThrow(
      new RegExp(`${CANDIDATE.replace(/\./g, '\\.')}.*npm run calibrate`),
    );
  });

  it('is scored and replayed with the calibration calibrate generates for it', () => {
    const def = byId(CANDIDATE);
    const { file } = bootstrapCalibration(def, calibrationSources());
    const version = resolveVersion(def, file);
    const ip: IpFacts = {
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
    // The snapshot as the refresher builds it from a one-line feed, as a node decodes it.
    const name = 'ip_added_later' as SnapshotName;
    const set = decodeSnapshot(
      name,
      buildSnapshot(name, { addedList: new Map([['', Buffer.from('192.0.2.10\n')]]) }).payload,
    );
    const scored = score({ evidence: { ip, data: { ip_added_later: set } }, version });
    expect(scored.components.find((c) => c.component === 'ip_added_later')).toMatchObject({
      verdict: 'elevated',
      contribution: 30,
    });
    const sig = {
      components: tierEvidence(scored, 'verify').components,
      fired: scored.fired,
      reports: 0,
      context: false,
    };
    expect(replay(sig, version)).toMatchObject({ raw: scored.raw, score: scored.score, band: scored.band });
  });
});

describe('versionsWith', () => {
  const written: VersionDefinition[] = [
    { id: 'a', status: 'live', points: { IP_HOSTING: 10 }, postureShift: 1 },
  ];
  it('refuses a candidate from a version that does not exist, an id taken, and points for no version', () => {
    expect(() =>
      versionsWith(written, [{ key: 'k', versions: [{ id: 'b', from: 'x', description: '' }] }]),
    ).toThrow('built from x');
    expect(() =>
      versionsWith(written, [{ key: 'k', versions: [{ id: 'a', from: 'a', description: '' }] }]),
    ).toThrow('exists already');
    expect(() => versionsWith(written, [{ key: 'k', points: { z: { IP_HOSTING: 1 } } }])).toThrow(
      'z, which does not',
    );
  });
  it('adds points to a written version (whose lock then refuses it, if released)', () => {
    expect(versionsWith(written, [{ key: 'k', points: { a: { IP_VPN_PROXY: 5 } } }])[0]!.points).toEqual({
      IP_HOSTING: 10,
      IP_VPN_PROXY: 5,
    });
  });
});
