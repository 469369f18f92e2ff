/**
 * Tries the abuses of a hostile caller against a running API node and prints what each one did,
 * one JSON object. Used to measure before/after on the same stack:
 *
 *   node loadtest/hostile-probe.ts http://127.0.0.1:8080
 *
 * Needs the node's REDIS_URL in the environment (it makes its own organisations and keys).
 * Behaviour, not speed: the slow-body probe gives up after SLOW_BODY_CAP_S (default 40 s).
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { newScoreId } from '../shared/ids.ts';
import { idempotencyKey } from '../shared/orgs/keyspace.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { sha256 } from '../services/api/controls/fingerprint.ts';

const url = process.argv[2] ?? 'http://127.0.0.1:8080';
const { port, hostname } = new URL(url);
const cfg = loadConfig();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-hostile-probe' });
const store = new OrgStore(redis);
const SLOW_CAP_S = Number(process.env.SLOW_BODY_CAP_S ?? 40);

async function key(tier: 'verify' | 'bureau', rateRps?: number) {
  const org = await store.createOrg({ name: 'probe', tier, ...(rateRps ? { rateRps } : {}) });
  return { orgId: org.org_id, apiKey: (await store.createKey(org.org_id)).api_key };
}

const score = (apiKey: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/score`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body,
  });

const count = (xs: number[], s: number) => xs.filter((x) => x === s).length;
const out: Record<string, unknown> = {};

const verify = await key('verify');
const bureau = await key('bureau', 100_000);

const phone = { subject: { phone_number: '+447911123456' } };
out.lone_surrogate_client_reference = (
  await score(bureau.apiKey, '{"subject":{"phone_number":"+447911123456"},"client_reference":"x\\ud800"}')
).status;
out.ipv6_zone_id = (
  await score(bureau.apiKey, JSON.stringify({ subject: { ip_address: '2001:db8::66%x' } }))
).status;
out.invalid_utf8_body = (
  await score(
    bureau.apiKey,
    Buffer.concat([
      Buffer.from('{"subject":{"phone_number":"+447911123456"},"client_reference":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]),
  )
).status;

// 30 parallel explains of unknown ids from a verify key (10/s).
const explains = await Promise.all(
  Array.from({ length: 30 }, async () => {
    const r = await fetch(`${url}/v1/explain/${newScoreId()}`, {
      headers: { authorization: `Bearer ${verify.apiKey}` },
    });
    await r.arrayBuffer();
    return r.status;
  }),
);
out.explain_30_parallel_verify = {
  '429': count(explains, 429),
  '503': count(explains, 503),
  '404': count(explains, 404),
};

// A 59 KB body of unknown fields: the size of the 422.
const big = JSON.stringify({
  ...phone,
  ...Object.fromEntries(Array.from({ length: 2400 }, (_, i) => [`f${i}`.padEnd(20, 'x'), 1])),
});
const bigRes = await score(bureau.apiKey, big);
out.error_body_for_59kb_request = {
  request_bytes: big.length,
  status: bigRes.status,
  response_bytes: (await bigRes.text()).length,
};

// 30 malformed bodies from the verify key, one after another.
const malformed: number[] = [];
for (let i = 0; i < 30; i++) {
  const r = await score(verify.apiKey, '{"subject":');
  await r.arrayBuffer();
  malformed.push(r.status);
}
out.malformed_30_sequential_verify = { '400': count(malformed, 400), '429': count(malformed, 429) };

// 30 unknown keys from this address, one after another.
const unknown: number[] = [];
for (let i = 0; i < 30; i++) {
  const r = await score(`frs_live_${String(i).padStart(32, 'Q')}`, JSON.stringify(phone));
  await r.arrayBuffer();
  unknown.push(r.status);
}
out.unknown_keys_30_sequential = { '401': count(unknown, 401), '429': count(unknown, 429) };
await new Promise((r) => setTimeout(r, 1_100)); // let this address's second pass

// Idempotency entry size in the durable Redis.
const idem = `probe-${Date.now()}`;
const idemRes = await score(bureau.apiKey, JSON.stringify({ ...phone, client_reference: 'probe' }), {
  'idempotency-key': idem,
});
const idemBody = await idemRes.text();
const entryKey = idempotencyKey(bureau.orgId, sha256(idem));
out.idempotency_entry = {
  response_bytes: idemBody.length,
  memory_usage_bytes: await redis.call('MEMORY', 'USAGE', entryKey),
  fields: Object.keys(await redis.hgetall(entryKey)).sort(),
};

// 413 for a huge Content-Length: is the connection closed after the answer?
{
  const s = connect(Number(port), hostname);
  await once(s, 'connect');
  let got = '';
  s.on('data', (d) => (got += d));
  s.on('error', () => undefined);
  s.write(
    `POST /v1/score HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bureau.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{`,
  );
  const closed = await Promise.race([
    once(s, 'close').then(() => true),
    new Promise((r) => setTimeout(() => r(false), 3_000)),
  ]);
  out.huge_content_length = { status: got.slice(9, 12), closed_within_3s: closed };
  s.destroy();
}

// A body sent one byte every 2 s: how long until the node cuts it?
{
  const s = connect(Number(port), hostname);
  await once(s, 'connect');
  let got = '';
  s.on('data', (d) => (got += d));
  s.on('error', () => undefined);
  const started = Date.now();
  s.write(
    `POST /v1/score HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bureau.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{`,
  );
  const trickle = setInterval(() => s.writable && s.write(' '), 2_000);
  const closed = await Promise.race([
    once(s, 'close').then(() => true),
    new Promise((r) => setTimeout(() => r(false), SLOW_CAP_S * 1000)),
  ]);
  clearInterval(trickle);
  out.slow_body = closed
    ? { status: got.slice(9, 12), cut_after_s: Math.round((Date.now() - started) / 100) / 10 }
    : { status: 'still open', held_at_least_s: SLOW_CAP_S };
  s.destroy();
}

console.log(JSON.stringify(out, null, 2));
redis.disconnect();
