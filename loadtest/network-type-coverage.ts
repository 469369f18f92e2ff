/**
 * Share of routed IPv4 addresses whose network type is unknown, as a caller sees it:
 * `node loadtest/network-type-coverage.ts [count] [--seed <n>]` (default 1000 addresses, seed
 * 20261125).
 *
 * Draws `count` addresses uniformly over the routed IPv4 space of the installed ASN table
 * (@ip-location-db/asn: every routed address equally likely, so a network weighs by its size),
 * with a seeded generator so a run can be repeated, and scores each through `POST /v1/score` with
 * a bureau key made for the run. Prints the share with no `as_type` in the resolution, the count
 * per `as_type`, and the ten largest unknown ASes the sample met. Refuses to print figures if any request
 * failed: a share over the answers that came back would be a different sample.
 *
 * Starts its own API node on a free port (this checkout's code, so its classification) unless
 * BASE_URL names a running one; needs the stack of the current environment (REDIS_URL, ...).
 * Like the local stack, it runs with the data-age limits relaxed (the seed feeds and the
 * installed packages are older than the production limits) and publishes the capability
 * snapshots Redis lacks first, as a deployment does.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { CAPABILITIES } from '../shared/capabilities/registry.ts';
import { startApi } from '../infra/harness/processes.ts';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { rng } from '../shared/scoring/calibration/population.ts';
import { loadResolutionData } from '../shared/resolution/resolution-data.ts';
import { routedV4, v4String } from '../shared/resolution/routed-space.ts';
import { errorMessage } from '../shared/error-message.ts';

const ROOT = join(import.meta.dirname, '..');
const DEFAULT_SEED = 20261125;
const USAGE = 'usage: node loadtest/network-type-coverage.ts [count > 0] [--seed <integer>]';

function parseArgs(argv: string[]): { count: number; seed: number } | undefined {
  let count = 1000;
  let seed = DEFAULT_SEED;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--seed') seed = Number(argv[++i]);
    else if (!arg.startsWith('--')) count = Number(arg);
    else return undefined;
  }
  return Number.isInteger(count) && count > 0 && Number.isInteger(seed) ? { count, seed } : undefined;
}

const args = parseArgs(process.argv.slice(2));
if (!args) {
  console.error(USAGE);
  process.exit(2);
}
const { count, seed } = args;

/** Ten years for every capability: the local stack's limits (infra/local/seed-data-age.ts). */
const RELAXED_DATA_AGE = CAPABILITIES.map((c) => `${c.name}=${10 * 365 * 24 * 3600}`).join(',');
const childEnv = { CAPABILITY_MAX_DATA_AGE_S: RELAXED_DATA_AGE, ...process.env, LOG_LEVEL: 'warn' };

/** The refresher's one-shot: builds the snapshots Redis has none of; API nodes build none. */
async function publishMissingSnapshots(): Promise<void> {
  const proc = spawn(process.execPath, [join(ROOT, 'services/refresher/refresh-now.ts'), '--missing'], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(proc, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`refresh --missing failed (exit ${code}): ${out.trim()}`);
}

interface IpResolution {
  bogon: boolean;
  asn?: string;
  as_name?: string;
  as_type?: string;
}

/** The sample: `count` routed addresses, uniform over routed space. */
const routed = routedV4(loadResolutionData().networks.asnV4);
const rand = rng(seed);
const addresses = Array.from({ length: count }, () =>
  v4String(routed.addressAt(Math.floor(rand() * routed.total))),
);

const cfg = loadConfig();
if (!process.env.BASE_URL) await publishMissingSnapshots();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-network-type-coverage' });
const store = new OrgStore(redis);
const org = await store.createOrg({
  name: 'network-type-coverage',
  tier: 'bureau',
  rateRps: 100_000,
  credits: 10_000_000,
});
const { api_key: key } = await store.createKey(org.org_id);
redis.disconnect();

/** Scores every address; failures are collected, not thrown, so all of them are reported. */
async function resolveAll(
  url: string,
): Promise<{ answers: (IpResolution | undefined)[]; failures: string[] }> {
  const answers: (IpResolution | undefined)[] = new Array(count);
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      try {
        const res = await fetch(`${url}/v1/score`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ subject: { ip_address: addresses[i] } }),
        });
        if (res.status !== 200) {
          failures.push(`address #${i}: HTTP ${res.status}`);
          await res.body?.cancel();
          continue;
        }
        const body = (await res.json()) as { subject?: { ip_address?: IpResolution } };
        if (!body.subject?.ip_address) failures.push(`address #${i}: no ip_address resolution in the answer`);
        answers[i] = body.subject?.ip_address;
      } catch (err) {
        failures.push(`address #${i}: ${errorMessage(err)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { answers, failures };
}

const node = process.env.BASE_URL
  ? { url: process.env.BASE_URL, stop: async () => undefined }
  : await startApi({ NODE_ID: `network-type-coverage-${process.pid}` });
try {
  const { answers, failures } = await resolveAll(node.url);
  if (failures.length > 0) {
    console.error(
      `${failures.length} of ${count} requests failed; no figures:\n${failures.slice(0, 10).join('\n')}`,
    );
    process.exitCode = 1;
  } else {
    report(answers as IpResolution[]);
  }
} finally {
  await node.stop();
}

function report(answers: IpResolution[]): void {
  const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)} %`;
  const byType = new Map<string, number>();
  const unknownByAs = new Map<string, { name: string; n: number }>();
  for (const a of answers) {
    const type = a.as_type ?? 'unknown';
    byType.set(type, (byType.get(type) ?? 0) + 1);
    if (a.as_type === undefined) {
      const as = a.asn ?? '(no AS)';
      const entry = unknownByAs.get(as) ?? { name: a.as_name ?? '', n: 0 };
      entry.n++;
      unknownByAs.set(as, entry);
    }
  }
  const unknown = byType.get('unknown') ?? 0;
  console.log(
    `${count} addresses drawn uniformly over ${(routed.total / 1e6).toFixed(0)} M routed IPv4 addresses, seed ${seed}\n`,
  );
  console.log(`network type unknown: ${unknown} of ${count} (${pct(unknown, count)})\n`);
  console.log('| as_type | addresses | share |\n|---|---|---|');
  for (const [type, n] of [...byType].sort((a, b) => b[1] - a[1]))
    console.log(`| ${type} | ${n} | ${pct(n, count)} |`);
  const spaceOf = (as: string) => routed.perAsn.get(Number(as.slice(2))) ?? 0;
  console.log('\nlargest unknown ASes met (routed IPv4 addresses of the AS, addresses in the sample):');
  for (const [as, { name, n }] of [...unknownByAs].sort((a, b) => spaceOf(b[0]) - spaceOf(a[0])).slice(0, 10))
    console.log(`  ${as} ${name}: ${(spaceOf(as) / 1e6).toFixed(2)} M, ${n} in the sample`);
}
