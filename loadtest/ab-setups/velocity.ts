/**
 * A/B of network velocity (SETUP=loadtest/ab-setups/velocity.ts): `after` reads its snapshots
 * under a capability prefix of its own whose velocity table holds every subject of the bench (each
 * scored by five organisations within the hour, so each request is a hit: the dearest case) and
 * FILLER other subjects (default 100,000); `before` reads the stack's table, empty as a
 * deployment's first one is. The bench's organisation is bureau, so velocity is consulted.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';
import { VelocityCounter, type CountedScore } from '../../shared/capabilities/network-velocity/counter.ts';
import { networkVelocity } from '../../shared/capabilities/network-velocity/index.ts';
import { velocitySnapshot } from '../../shared/capabilities/network-velocity/publish.ts';
import { SnapshotStore } from '../../shared/capabilities/store.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import type { Redis } from 'ioredis';
import { publishCountedTable } from '../../services/refresher/publish-counted.ts';
import type { AbSetup, AbSetupContext } from './setup.ts';

const ROOT = join(import.meta.dirname, '../..');
const ORGS = 5;

export default async function velocity({ cfg, redis }: AbSetupContext): Promise<AbSetup> {
  const prefix = `${cfg.CAPABILITY_KEY_PREFIX}-abv${randomUUID().slice(0, 6)}`;
  await publishSnapshots({ CAPABILITY_KEY_PREFIX: prefix });
  const now = Date.now();
  const subjects = JSON.parse(
    readFileSync(join(ROOT, 'loadtest/results/subjects.json'), 'utf8'),
  ) as CountedScore['subject'][];
  const filler = Number(process.env.FILLER ?? 100_000);
  const scores: CountedScore[] = [
    ...subjects.flatMap((subject) =>
      Array.from({ length: ORGS }, (_, k) => ({
        orgId: `org_ab_${k}`,
        scoredAtMs: now - k * 60_000,
        subject,
      })),
    ),
    ...Array.from({ length: filler }, (_, i) => ({
      orgId: `org_ab_${i % ORGS}`,
      scoredAtMs: now - (i % 3600) * 1000,
      subject: { phone_number: `+4479${String(i).padStart(8, '0')}` },
    })),
  ];
  const counter = new VelocityCounter(redis, prefix, SubjectKeys.fromConfig(cfg));
  for (let i = 0; i < scores.length; i += 2_000) await counter.count(scores.slice(i, i + 2_000), now);
  const built = await velocitySnapshot(redis, prefix, Date.now());
  const store = new SnapshotStore(redis, prefix);
  const current = await store.current(networkVelocity.key);
  await publishCountedTable(store, networkVelocity.key, built, current, Date.now());
  console.error(`[ab] velocity table of ${built.entries} subjects under ${prefix}`);
  return {
    after: { env: { CAPABILITY_KEY_PREFIX: prefix } },
    teardown: () => unlinkPrefix(redis as Redis, prefix),
  };
}
