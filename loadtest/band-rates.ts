/**
 * Band shares and recommended actions of the load-test population, as a new caller would see
 * them: `node loadtest/band-rates.ts [count]` (default 3000).
 *
 * Scores the first `count` subjects of `loadtest/subjects.ts` (same generator and seed as
 * `npm run subjects`; with `--legacy`, the draw it used before 2026.12.0) through `POST /v1/score` with a bureau key made for the run, twice: with no
 * context, and with a context whose collection moment is `payment`. Prints, per band, its share
 * and the action each call got, plus the share of routable addresses whose network type is
 * unknown (no `as_type` in the resolution). Starts its own API node on a free port unless
 * BASE_URL names a running one. Needs the stack of the current environment (REDIS_URL, ...).
 */
import { startApi } from '../infra/harness/processes.ts';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { BANDS, type Band } from '../shared/vocabulary/score-terms.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { drawBootstrap } from '../shared/scoring/calibration/bootstrap.ts';
import { drawLegacyPopulation } from '../shared/scoring/calibration/population.ts';
import { SUBJECTS_SEED } from './subjects.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';

const args = process.argv.slice(2);
const legacy = args.includes('--legacy');
const count = Number(args.find((a) => !a.startsWith('--')) ?? 3000);
if (!Number.isInteger(count) || count <= 0) {
  console.error('usage: node loadtest/band-rates.ts [count > 0] [--legacy]');
  process.exit(2);
}

const cfg = loadConfig();
// API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
await publishSnapshots();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-band-rates' });
const store = new OrgStore(redis);
const org = await store.createOrg({
  name: 'band-rates',
  tier: 'bureau',
  rateRps: 100_000,
  credits: 10_000_000,
});
const { api_key: key } = await store.createKey(org.org_id);
redis.disconnect();

const node = process.env.BASE_URL
  ? { url: process.env.BASE_URL, stop: async () => undefined }
  : await startApi({ NODE_ID: `band-rates-${process.pid}` });
// --legacy: the population loadtest/subjects.ts drew before 2026.12.0 (the issue's BEFORE figures).
const subjects = legacy
  ? drawLegacyPopulation(count, SUBJECTS_SEED)
  : drawBootstrap(count, SUBJECTS_SEED).subjects;
const PAYMENT = { sector: 'ecommerce', geography: {}, collection_point: { moment: 'payment' } };

interface Scored {
  score_version: string;
  band: Band;
  recommended_action: string;
  subject?: { ip_address?: { bogon: boolean; as_type?: string } };
}

async function scoreAll(context?: unknown): Promise<Scored[]> {
  const out: Scored[] = new Array(subjects.length);
  let next = 0;
  const worker = async () => {
    while (next < subjects.length) {
      const i = next++;
      const res = await fetch(`${node.url}/v1/score`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: subjects[i], ...(context ? { context } : {}) }),
      });
      if (res.status !== 200) throw new Error(`subject ${i}: HTTP ${res.status} ${await res.text()}`);
      out[i] = (await res.json()) as Scored;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return out;
}

try {
  const plain = await scoreAll();
  const payment = await scoreAll(PAYMENT);
  const version = plain[0]!.score_version;
  const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)} %`;
  const actions = (rows: Scored[], band: Band) =>
    [...new Set(rows.filter((r) => r.band === band).map((r) => r.recommended_action))].join(', ') || '-';
  console.log(
    `score_version ${version}, ${count} subjects (${legacy ? 'legacy population' : 'loadtest/subjects.ts'}, seed ${SUBJECTS_SEED})\n`,
  );
  console.log('| band | share | recommended action (no context / `moment: payment`) |');
  console.log('|---|---|---|');
  for (const band of BANDS) {
    const n = plain.filter((r) => r.band === band).length;
    console.log(`| ${band} | ${pct(n, count)} | ${actions(plain, band)} / ${actions(payment, band)} |`);
  }
  const routable = plain.filter((r) => r.subject?.ip_address && !r.subject.ip_address.bogon);
  const unknown = routable.filter((r) => !r.subject!.ip_address!.as_type).length;
  console.log(
    `\nnetwork type unknown: ${unknown} of ${routable.length} routable addresses (${pct(unknown, routable.length)})`,
  );
  const byAction = new Map<string, number>();
  for (const r of payment) byAction.set(r.recommended_action, (byAction.get(r.recommended_action) ?? 0) + 1);
  console.log(
    `actions at moment payment: ${[...byAction].map(([a, n]) => `${a} ${pct(n, count)}`).join(', ')}`,
  );
} finally {
  await node.stop();
}
