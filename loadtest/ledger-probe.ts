/**
 * Tries, against running API nodes with their audit sink, what one organisation can do to the
 * scores every other organisation sees through the shared reputation ledger, and prints a table.
 * Used for before/after on the same stack:
 *
 *   node loadtest/ledger-probe.ts http://127.0.0.1:8080 [http://127.0.0.1:8081]
 *
 * Needs the nodes' REDIS_URL in the environment (it makes its own organisations and keys). Each
 * scenario reports, then waits LEDGER_WAIT_S (default 6 s: the ledger's 10 s promise with the
 * learner's own wait) before the viewer scores again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { freshAddress, freshMobile } from '../infra/harness/fixtures.ts';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { permanentKey } from '../shared/redis-keys.ts';

const urls = process.argv.slice(2);
if (urls.length === 0) urls.push('http://127.0.0.1:8080');
const cfg = loadConfig();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-ledger-probe' });
const store = new OrgStore(redis);
const WAIT_MS = Number(process.env.LEDGER_WAIT_S ?? 6) * 1000;
const node = (i: number) => urls[i % urls.length]!;

type Tier = 'verify' | 'assess' | 'bureau';
async function org(tier: Tier) {
  const o = await store.createOrg({ name: 'ledger-probe', tier, rateRps: 1000, credits: 1_000_000 });
  return { orgId: o.org_id, apiKey: (await store.createKey(o.org_id)).api_key };
}

type Subject = { phone_number?: string; ip_address?: string };

async function score(i: number, apiKey: string, subject: Subject) {
  const res = await fetch(`${node(i)}/v1/score`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subject }),
  });
  if (res.status !== 200) throw new Error(`score: ${res.status} ${await res.text()}`);
  return (await res.json()) as { score_id: string; score: number; band: string; recommended_action: string };
}

async function report(i: number, apiKey: string, body: unknown): Promise<number> {
  const res = await fetch(`${node(i)}/v1/outcomes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

const seen = (s: { band: string; score: number; recommended_action: string }) =>
  `${s.band}, score ${s.score}, ${s.recommended_action}`;

async function unexpiringKeys(): Promise<Set<string>> {
  const out = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 5000);
    cursor = next;
    const ttls = await Promise.all(keys.map((k) => redis.pttl(k)));
    keys.forEach((k, i) => ttls[i] === -1 && !permanentKey(k) && out.add(k));
  } while (cursor !== '0');
  return out;
}

const rows: [string, string, string][] = [];
const viewer = await org('bureau');

{
  const subject = { phone_number: freshMobile() };
  const reporter = await org('bureau');
  const before = await score(0, viewer.apiKey, subject);
  await report(0, reporter.apiKey, { subject, outcome: 'confirmed_fraud' });
  await sleep(WAIT_MS);
  rows.push([
    'one confirmed_fraud by subject, fresh UK mobile the reporter never scored',
    seen(before),
    seen(await score(1, viewer.apiKey, subject)),
  ]);
}
{
  const subject = { phone_number: freshMobile(), ip_address: freshAddress() };
  const reporter = await org('bureau');
  const before = await score(0, viewer.apiKey, subject);
  const own = await score(1, reporter.apiKey, subject);
  await report(0, reporter.apiKey, { score_id: own.score_id, outcome: 'confirmed_fraud' });
  await sleep(WAIT_MS);
  rows.push([
    'one outcome on its own score of a phone + IP',
    seen(before),
    seen(await score(1, viewer.apiKey, subject)),
  ]);
}
for (const scoredFirst of [false, true]) {
  const subject = { phone_number: freshMobile(), ip_address: freshAddress() };
  const [a, b] = await Promise.all([org('verify'), org('verify')]);
  const before = await score(0, viewer.apiKey, subject);
  if (scoredFirst) {
    await score(0, a.apiKey, subject);
    await score(1, b.apiKey, subject);
    await sleep(WAIT_MS);
  }
  await report(0, a.apiKey, { subject, outcome: 'confirmed_fraud' });
  await report(1, b.apiKey, { subject, outcome: 'confirmed_fraud' });
  await sleep(WAIT_MS);
  rows.push([
    `two verify organisations, one outcome each by subject, ${scoredFirst ? 'both having scored it' : 'neither having scored it'}`,
    seen(before),
    seen(await score(0, viewer.apiKey, subject)),
  ]);
}
{
  const before = await unexpiringKeys();
  const busy = await org('bureau');
  const scored: { score_id: string }[] = [];
  for (let i = 0; i < 300; i++)
    scored.push(await score(i, busy.apiKey, { phone_number: freshMobile(), ip_address: freshAddress() }));
  const statuses: number[] = [];
  for (const [i, s] of scored.entries()) {
    statuses.push(await report(i, busy.apiKey, { score_id: s.score_id, outcome: 'confirmed_fraud' }));
    statuses.push(
      await report(i + 1, busy.apiKey, { subject: { phone_number: freshMobile() }, outcome: 'chargeback' }),
    );
  }
  await sleep(WAIT_MS);
  const after = await unexpiringKeys();
  const added = [...after].filter((k) => !before.has(k));
  rows.push([
    '300 scores + 600 outcomes: new Redis keys without an expiry (not on the permanent list)',
    `${before.size} before`,
    `${added.length} added (${statuses.filter((s) => s === 202).length} of 600 outcomes 202)`,
  ]);
}
{
  const reporter = await org('verify');
  const subject = { phone_number: freshMobile() };
  const statuses = [];
  for (const occurred_at of ['1969-12-31T23:59:59Z', '2001-01-01T00:00:00Z'])
    statuses.push(
      `${occurred_at}: ${await report(0, reporter.apiKey, { subject, outcome: 'chargeback', occurred_at })}`,
    );
  rows.push(['outcomes with an occurred_at 13 months ago or more', '', statuses.join('; ')]);
}

console.log('| what one organisation did | another organisation before | after |');
console.log('|---|---|---|');
for (const [what, before, after] of rows) console.log(`| ${what} | ${before} | ${after} |`);
redis.disconnect();
