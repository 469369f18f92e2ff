/**
 * Builds the calibration table of a new or candidate score version: `npm run calibrate`.
 *
 *   npm run calibrate                               every version not yet in versions.lock.json, and every candidate
 *   npm run calibrate -- --version 2026.12.1        that version only (refused for a released one)
 *   npm run calibrate -- --from-history --days 30   from the scored population in ClickHouse, blended
 *                                                   with the bootstrap population when history is thin
 *
 * A table is the raw-risk distribution of the version's reference population (see
 * docs/scoring.md "Calibration"). For versions with rate caps it also derives the band floors:
 * each band's floor is the lowest score at which the share of the population that would get the
 * band or above, evidence gates applied, is within the cap (and, for versions with a least share
 * per band, the band below keeps that share). Writes calibration/<id>.json, the version's hash
 * into versions.lock.json and every version's measured band rates into calibration/band-rates.json.
 * Released versions are never rebuilt.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Band, Verdict } from '../../vocabulary/score-terms.ts';
import { parseRangeFeed } from '../../capabilities/feeds/range-feed.ts';
import { FEED_LIMITS } from '../../capabilities/registry.ts';
import { buildRangeSet } from '../../resolution/range-set.ts';
import { createClickHouse } from '../../clients/clickhouse.ts';
import { loadConfig } from '../../config.ts';
import type { IpNetworks } from '../../resolution/ip-networks.ts';
import { loadResolutionData } from '../../resolution/resolution-data.ts';
import { bandFor, evaluate, gateBand } from '../engine.ts';
import { gatherEvidence, type EvidenceSources } from '../evidence.ts';
import type { CapabilityData } from '../../capabilities/evidence.ts';
import { CAPABILITY_DEFINITIONS } from '../../capabilities/index.ts';
import { FEEDS } from '../../capabilities/registry.ts';
import { buildSnapshot, decodeSnapshot, type SnapshotName } from '../../capabilities/snapshots.ts';
import { feedLocations } from '../../capabilities/sources.ts';
import type { Config } from '../../config.ts';
import { buildCdf, percentileRank } from '../percentile.ts';
import { replayFindings } from '../replay.ts';
import type { ReasonCode } from '../reason-codes.ts';
import {
  readBandRates,
  readCalibrationFile,
  readLock,
  resolveVersion,
  type CalibrationFile,
} from '../version-files.ts';
import { pointsOf, VERSION_DEFINITIONS, type BandFloors, type VersionDefinition } from '../weights.ts';
import { BOOTSTRAP_RATES, drawBootstrap } from './bootstrap.ts';
import { historyRaws, type HistoryRow } from './history.ts';
import { drawLegacyPopulation } from './population.ts';
import { errorMessage } from '../../error-message.ts';
import { ipNetworkType } from '../../capabilities/ip-network-type/index.ts';

const BOOTSTRAP_SEED = 20261201;
const LEGACY_SEED = 20261101;
const POPULATION = 20_000;
/** Below this many distinct subject-days, history is blended with bootstrap subjects up to it. */
const MIN_HISTORY = 20_000;
const DIR = new URL('./', import.meta.url);
const BANDS_UP: readonly (keyof BandFloors)[] = ['low', 'medium', 'high', 'critical'];

/** One member of a reference population: its raw risk and the verdicts of its components. */
export interface Member {
  raw: number;
  verdicts: ReadonlySet<Verdict>;
}

/**
 * Each snapshot capability built from files alone, from the seeds its sources declare: the data
 * its finding reads, as a node that loaded it holds it. A capability added in its own folder is
 * calibrated on its data with no line here. The network type's tables come from the resolution
 * cache instead (loadResolutionData), with its file sources (the hosting ranges) from their seeds.
 */
function checkedInData(networks: IpNetworks): CapabilityData {
  const locations = feedLocations({} as Config);
  const out: Record<string, unknown> = {};
  const read = (f: string) => new Map([['', readFileSync(locations[f]!)]]);
  for (const def of CAPABILITY_DEFINITIONS) {
    if (def.kind !== 'snapshot') continue;
    const feeds = Object.keys(def.sources);
    const name = def.key as SnapshotName;
    if (feeds.every((f) => FEEDS[f]!.layout === 'file')) {
      const files = Object.fromEntries(feeds.map((f) => [f, read(f)]));
      out[def.key] = decodeSnapshot(name, buildSnapshot(name, files).payload);
    } else if (def.key === ipNetworkType.key) {
      // Its optional registry allocations have no seed: the tables alone, as a fresh checkout.
      out[def.key] = {
        networks,
        hosting: buildRangeSet(parseRangeFeed(read('hosting').get('')!, undefined, FEED_LIMITS.hosting!)),
      };
    }
  }
  return out;
}

/** Resolution data plus the checked-in feeds, as a node with every capability loaded sees them. */
export function calibrationSources(): EvidenceSources {
  const data = loadResolutionData();
  const checkedIn = checkedInData(data.networks);
  return {
    data: checkedIn,
    carriers: data.carriers,
    networks: data.networks,
    ndcRisk: checkedIn.ndc_range_risk as EvidenceSources['ndcRisk'],
  };
}

/**
 * Floors meeting the caps with gates applied: the lowest score per band whose gated share fits.
 * With `bandMinShare`, also high enough that the band below keeps that share of the population
 * (counting only the members its own gate admits, so the share is never overstated).
 */
export function deriveFloors(
  members: readonly Member[],
  def: VersionDefinition,
  cal: Parameters<typeof percentileRank>[1],
): BandFloors {
  const caps = def.bandRateCaps!;
  const minShare = def.bandMinShare ?? 0;
  const scores = members.map((m) => percentileRank(m.raw, cal));
  const admits = (band: Band) => {
    const needs = def.gates?.[band];
    return members.map((m) => !needs || needs.some((v) => m.verdicts.has(v)));
  };
  const shareIn = (eligible: boolean[], from: number, below: number) =>
    scores.filter((s, i) => s >= from && s < below && eligible[i]).length / members.length;
  const floors = { low: 0, medium: 0, high: 0, critical: 0 };
  let under: Band = 'minimal';
  let from = 0;
  for (const band of BANDS_UP) {
    const eligible = admits(band);
    const eligibleUnder = admits(under);
    let f = Math.max(from, 1);
    const fits = (floor: number) =>
      shareIn(eligible, floor, Infinity) <= caps[band] && shareIn(eligibleUnder, from, floor) >= minShare;
    while (f < 100 && !fits(f)) f++;
    floors[band] = f;
    under = band;
    from = f;
  }
  return floors;
}

/** Band shares of a population under a resolved version (balanced posture, no context). */
export function bandRates(
  members: readonly Member[],
  version: ReturnType<typeof resolveVersion>,
): Record<Band, number> {
  const counts: Record<Band, number> = { minimal: 0, low: 0, medium: 0, high: 0, critical: 0 };
  for (const m of members) {
    const band = bandFor(percentileRank(m.raw, version.calibration), version);
    counts[
      gateBand(
        band,
        [...m.verdicts].map((verdict) => ({ verdict })),
        version.gates,
      )
    ]++;
  }
  const out = {} as Record<Band, number>;
  for (const [b, n] of Object.entries(counts)) out[b as Band] = Number((n / members.length).toFixed(4));
  return out;
}

export function bootstrapMembers(def: VersionDefinition, sources: EvidenceSources): Member[] {
  const { subjects, reports } = drawBootstrap(POPULATION, BOOTSTRAP_SEED);
  return subjects.map((s, i) => {
    const { components, raw } = evaluate(gatherEvidence(s, sources, { reports: reports[i]! }), def.points);
    return { raw, verdicts: new Set(components.map((c) => c.verdict)) };
  });
}

export function legacyMembers(def: VersionDefinition, sources: EvidenceSources): Member[] {
  // As these versions were calibrated: no ledger, no feeds.
  const bare = { carriers: sources.carriers, networks: sources.networks };
  return drawLegacyPopulation(POPULATION, LEGACY_SEED).map((s) => {
    const { components, raw } = evaluate(gatherEvidence(s, bare), def.points);
    return { raw, verdicts: new Set(components.map((c) => c.verdict)) };
  });
}

/**
 * A history row as a member: its fired codes' verdicts as their capabilities declare them
 * (replay.ts, the same declarations a backtest replays by). A row keeps no report count, so a code
 * counted per report is taken to have as many reports as the raw risk can hold: this can only
 * overstate the critical share, the safe side of its cap.
 */
export function historyMember(row: HistoryRow, def: VersionDefinition): Member {
  const perReport = row.fired.filter((code) => COUNTED_PER_REPORT.has(code));
  const reports = Math.min(
    1_000,
    ...perReport.map((code) => Math.floor(row.raw / Math.max(1, pointsOf(def.points, code as ReasonCode)))),
  );
  const findings = replayFindings({ components: [], fired: row.fired, reports, context: false });
  return { raw: row.raw, verdicts: new Set(findings.map((f) => f.verdict)) };
}

/** Codes whose weight is per report (a capability's replay declares `byReports` for them). */
const COUNTED_PER_REPORT: ReadonlySet<string> = new Set(
  CAPABILITY_DEFINITIONS.flatMap((d) =>
    Object.keys(d.replay.verdicts).filter(
      (code) =>
        (d.replay.byReports as ((c: string, n: number) => unknown) | undefined)?.(code, 1) !== undefined,
    ),
  ),
);

/** The calibration file `npm run calibrate` writes for `def` from the bootstrap population alone. */
export function bootstrapCalibration(def: VersionDefinition, sources: EvidenceSources) {
  return calibrationOf(def, bootstrapMembers(def, sources), BOOTSTRAP_METHOD, {
    kind: 'bootstrap',
    bootstrap_subjects: POPULATION,
  });
}

const BOOTSTRAP_METHOD =
  'shared/scoring/calibration/bootstrap.ts: valid mobile numbers and size-weighted announced IPv4 space, ' +
  `with risk evidence at the rates of BOOTSTRAP_RATES ${JSON.stringify(BOOTSTRAP_RATES)}`;

function calibrationOf(
  def: VersionDefinition,
  members: Member[],
  method: string,
  source: CalibrationFile['source'],
): { file: CalibrationFile; members: Member[] } {
  const { raw, below, quantiles } = buildCdf(members.map((m) => m.raw));
  const file: CalibrationFile = {
    score_version: def.id,
    method,
    seed: BOOTSTRAP_SEED,
    population: members.length,
    quantiles,
    cdf: { raw, below },
    ...(def.bandRateCaps ? { band_floors: deriveFloors(members, def, { cdf: { raw, below } }) } : {}),
    source,
  };
  return { file, members };
}

/** From the scored history of the last `days` days, topped up with bootstrap subjects when thin. */
async function build(def: VersionDefinition, sources: EvidenceSources, days: number | undefined) {
  if (days === undefined) return bootstrapCalibration(def, sources);
  const cfg = loadConfig();
  const ch = createClickHouse(cfg.CLICKHOUSE_URL, { requestTimeoutMs: 300_000 });
  const history = await historyRaws(def, days, ch, cfg.CLICKHOUSE_DATABASE).finally(() => ch.close());
  const fromHistory = history.rows.map((r) => historyMember(r, def));
  const kind =
    fromHistory.length >= MIN_HISTORY ? 'history' : fromHistory.length === 0 ? 'bootstrap' : 'blend';
  const topUp = kind === 'history' ? 0 : MIN_HISTORY - fromHistory.length;
  const members = [...fromHistory, ...bootstrapMembers(def, sources).slice(0, topUp)];
  const method = `${kind === 'bootstrap' ? '' : `scored population of the last ${days} days (one subject counted once per day) `}${kind === 'blend' ? 'blended with ' : ''}${kind === 'history' ? '' : BOOTSTRAP_METHOD}`;
  console.log(
    `${def.id}: ${kind}: ${fromHistory.length} subject-days from ClickHouse history (${history.skipped} rows of versions with other points skipped), ${topUp} bootstrap subjects`,
  );
  return calibrationOf(def, members, method, {
    kind,
    days,
    history_subject_days: fromHistory.length,
    history_versions: history.versions,
    history_rows_skipped_other_points: history.skipped,
    bootstrap_subjects: topUp,
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      version: { type: 'string' },
      'from-history': { type: 'boolean', default: false },
      days: { type: 'string' },
    },
  });
  const days = values['from-history'] ? Number(values.days ?? 30) : undefined;
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 400))
    throw new Error('--days must be an integer from 1 to 400');
  const lock = readLock();
  const targets = VERSION_DEFINITIONS.filter((d) =>
    values.version ? d.id === values.version : d.status === 'candidate' || !(d.id in lock),
  );
  if (values.version && targets.length === 0) throw new Error(`unknown score version ${values.version}`);
  const sealed = targets.filter((d) => d.status !== 'candidate' && d.id in lock);
  if (sealed.length > 0)
    throw new Error(
      `${sealed.map((d) => d.id).join(', ')} is released: a live or retired version is never rebuilt`,
    );

  const sources = calibrationSources();
  const rates = readBandRatesOrEmpty();
  for (const def of targets) {
    const { file, members } = await build(def, sources, days);
    writeFileSync(new URL(`${def.id}.json`, DIR), `${JSON.stringify(file, null, 2)}\n`);
    const version = resolveVersion(def, file);
    lock[def.id] = version.hash;
    rates[def.id] = bandRates(members, version);
    console.log(
      `${def.id}: floors ${JSON.stringify(version.bandFloors)}, band rates ${JSON.stringify(rates[def.id])}`,
    );
  }
  // Released versions' rates are measured again on their own population, with today's data.
  for (const def of VERSION_DEFINITIONS) {
    if (targets.includes(def)) continue;
    const version = resolveVersion(def, readCalibrationFile(def.id));
    const members = def.bandRateCaps ? bootstrapMembers(def, sources) : legacyMembers(def, sources);
    rates[def.id] = bandRates(members, version);
  }
  writeFileSync(new URL('../versions.lock.json', DIR), `${JSON.stringify(lock, null, 2)}\n`);
  writeFileSync(new URL('band-rates.json', DIR), `${JSON.stringify(rates, null, 2)}\n`);
}

function readBandRatesOrEmpty(): Record<string, Record<string, number>> {
  try {
    return readBandRates();
  } catch {
    return {};
  }
}

if (import.meta.main) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`calibrate: ${errorMessage(err)}`);
      process.exit(2);
    },
  );
}
