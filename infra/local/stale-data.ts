/**
 * The start banner's word on stale data: which data sets `GET /v1/health` reports older than
 * their maximum age, how old, and the one command that refreshes them from their publishers
 * (`npm run feeds:update` into infra/feeds/, which the running refresher reads, then a refresh job
 * per capability so the nodes swap now rather than at the next scheduled run). The publishers,
 * and why a feed has none, are read from the capabilities' own declarations.
 */
import { CAPABILITY_DEFINITIONS } from '../../shared/capabilities/index.ts';

/** A capability as `GET /v1/health` reports it (the fields this reads). */
export interface HealthCapability {
  data_as_of?: string;
  max_data_age_s?: number;
  stale?: boolean;
}

interface Published {
  /** The publishers' files `feeds:update` imports (single-file feeds only; it writes those). */
  from: readonly string[];
  /** Why part of it cannot be refreshed: its feeds that name no publisher. */
  limit?: string;
}

export const PUBLISHED: ReadonlyMap<string, Published> = new Map(
  CAPABILITY_DEFINITIONS.map((def) => {
    const sources = Object.values(def.sources);
    const from = sources.filter((s) => s.layout === 'file').flatMap((s) => s.publishers);
    const why = sources.filter((s) => s.publishers.length === 0).map((s) => s.unpublished ?? 'no publisher');
    const limit = why.length > 0 ? `changes only with a release: ${why.join('; ')}` : undefined;
    return [def.key, { from, ...(limit ? { limit } : {}) }];
  }),
);

const DAY_S = 86_400;

function days(s: number): string {
  const d = Math.floor(s / DAY_S);
  return d === 1 ? '1 day' : `${d} days`;
}

/** The banner's lines on stale data, or none when every data set is within its maximum age. */
export function staleDataLines(
  capabilities: Readonly<Record<string, HealthCapability>>,
  nowMs: number,
): string[] {
  const stale = Object.entries(capabilities).filter(([, c]) => c.stale === true);
  if (stale.length === 0) return [];
  const width = Math.max(...stale.map(([name]) => name.length));
  const lines = [
    `Stale data: ${stale.length === 1 ? 'one data set is' : `${stale.length} data sets are`} older than the maximum age`,
    'health reports (/v1/health); each still counts what it lists, but vouches for nothing it does not:',
  ];
  for (const [name, c] of stale) {
    const asOf = c.data_as_of ?? '?';
    const age = c.data_as_of ? days((nowMs - Date.parse(c.data_as_of)) / 1000) : '?';
    const max = c.max_data_age_s !== undefined ? days(c.max_data_age_s) : '?';
    const limit = PUBLISHED.get(name)?.limit;
    lines.push(
      `  ${name.padEnd(width)}  data of ${asOf.slice(0, 10)}, ${age} old (maximum ${max})${limit ? `; ${limit}` : ''}`,
    );
  }
  const refreshable = stale
    .map(([name]) => name)
    .filter((name) => (PUBLISHED.get(name)?.from.length ?? 0) > 0);
  if (refreshable.length > 0) {
    const from = refreshable.flatMap((name) => PUBLISHED.get(name)!.from.map((url) => `--from ${url}`));
    const jobs = refreshable.map((name) => `npm run --silent refresh -- ${name}`);
    lines.push(
      'Refresh them from their publishers (needs internet; writes infra/feeds/):',
      `  npm run feeds:update -- ${from.join(' ')} && ${jobs.join(' && ')}`,
    );
  }
  return lines;
}
