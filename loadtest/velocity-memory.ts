/**
 * What network velocity's counts cost in Redis, per million distinct subjects:
 * `node loadtest/velocity-memory.ts [subjects]` (default 200,000) against the local stack's Redis.
 *
 * Counts `subjects` distinct numbers through the real counter (count.lua), each scored once by one
 * organisation (most subjects: the typical one), then a thousand subjects scored by five
 * organisations over a day (a busy one), under a private key prefix; reports MEMORY USAGE averaged
 * over a sample of each kind's keys and the server's used_memory growth, scaled to a million
 * subjects; then deletes its keys. The server is shared, so used_memory moves with other clients:
 * the sampled MEMORY USAGE is the figure, used_memory the cross-check.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  VelocityCounter,
  velocityKey,
  type CountedScore,
} from '../shared/capabilities/network-velocity/counter.ts';
import { SubjectKeys } from '../shared/capabilities/subject-key.ts';
import { loadConfig } from '../shared/config.ts';
import { unlinkPrefix } from '../infra/harness/feed-server.ts';

const cfg = loadConfig();
const subjects = Number(process.argv[2] ?? 200_000);
const prefix = `frs:cap:velocity-memory-${randomUUID().slice(0, 8)}`;
const redis = new Redis(cfg.REDIS_URL);
const keys = SubjectKeys.fromConfig(cfg);
const counter = new VelocityCounter(redis, prefix, keys);
const now = Date.now();
const phone = (i: number) => `+4479${String(i).padStart(8, '0')}`;

async function usedMemory(): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
}

async function sampled(numbers: readonly string[]): Promise<number> {
  let total = 0;
  for (const n of numbers)
    total += Number(await redis.memory('USAGE', velocityKey(prefix, keys.key(`phone:${n}`)), 'SAMPLES', '0'));
  return total / numbers.length;
}

async function countAll(scores: CountedScore[]): Promise<void> {
  for (let i = 0; i < scores.length; i += 2_000) await counter.count(scores.slice(i, i + 2_000), now);
}

try {
  const before = await usedMemory();
  const quiet = Array.from({ length: subjects }, (_, i) => phone(i));
  await countAll(
    quiet.map((n, i) => ({
      orgId: `org_${i % 50}`,
      scoredAtMs: now - (i % 3600) * 1000,
      subject: { phone_number: n },
    })),
  );
  const grown = (await usedMemory()) - before;
  const busy = Array.from({ length: 1_000 }, (_, i) => phone(90_000_000 + i));
  await countAll(
    busy.flatMap((n) =>
      Array.from({ length: 20 }, (_, k) => ({
        orgId: `org_${k % 5}`,
        scoredAtMs: now - k * 3_600_000,
        subject: { phone_number: n },
      })),
    ),
  );
  const sample = (list: readonly string[]) => list.filter((_, i) => i % Math.ceil(list.length / 1_000) === 0);
  const quietBytes = await sampled(sample(quiet));
  const busyBytes = await sampled(busy);
  const hot = Number(await redis.memory('USAGE', `${prefix}:velocity:hot`, 'SAMPLES', '0'));
  const mb = (bytesPerSubject: number) => `${((bytesPerSubject * 1e6) / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    JSON.stringify({
      subjects,
      one_org_subject_bytes: Math.round(quietBytes),
      one_org_per_million: mb(quietBytes),
      busy_subject_bytes: Math.round(busyBytes),
      busy_per_million: mb(busyBytes),
      hot_set_bytes_per_hot_subject: Math.round(hot / busy.length),
      used_memory_growth_per_million: mb(grown / subjects),
    }),
  );
} finally {
  await unlinkPrefix(redis, prefix);
  redis.disconnect();
}
