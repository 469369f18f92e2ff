/**
 * The velocity counter against a real Redis: a re-delivered batch counts nothing again, and the hot
 * set (the subjects the refresher publishes) lets a subject go a month after its last score even
 * though the counter trims the set at most once a minute.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  collectHot,
  readCounts,
  velocityHotKey,
  VelocityCounter,
  type CountedScore,
} from '../../shared/capabilities/network-velocity/counter.ts';
import { velocitySubjects } from '../../shared/capabilities/network-velocity/subjects.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { cfg, freshMobile, redis } from '../../infra/harness/fixtures.ts';

const prefix = `frs:cap:test-velocity-counter-${randomUUID().slice(0, 8)}`;
const keys = SubjectKeys.fromConfig(cfg);
const DAY_MS = 86_400_000;

describe('velocity counter', () => {
  const r = redis();
  afterAll(async () => {
    await unlinkPrefix(r, prefix);
    r.disconnect();
  });

  const digestOf = (phone: string) => keys.key(velocitySubjects({ phone_number: phone })[0]!.canonical);
  const scoresOf = (phone: string, orgs: string[], atMs: number): CountedScore[] =>
    orgs.map((orgId, i) => ({ orgId, scoredAtMs: atMs + i, subject: { phone_number: phone } }));

  it('counts a re-delivered batch once', async () => {
    const counter = new VelocityCounter(r, prefix, keys);
    const phone = freshMobile();
    const now = Date.now();
    const batch = scoresOf(phone, ['org-a', 'org-b', 'org-c'], now - 5_000);
    await counter.count(batch, now);
    await counter.count(batch, now);
    const counts = await readCounts(r, prefix, digestOf(phone), now);
    expect(counts.organisations).toEqual([3, 3, 3]);
    expect(counts.scores).toEqual([3, 3, 3]);
  });

  it('lets a subject leave the hot set a month after its last score', async () => {
    const counter = new VelocityCounter(r, prefix, keys);
    const old = freshMobile();
    const t0 = Date.now() - 40 * DAY_MS;
    await counter.count(scoresOf(old, ['org-a', 'org-b', 'org-c'], t0), t0);
    expect((await collectHot(r, prefix, t0)).map((c) => c.digest)).toContain(digestOf(old));
    expect(await r.zscore(velocityHotKey(prefix), digestOf(old))).not.toBeNull();

    // Forty days on, the next batch trims it away.
    const later = freshMobile();
    const now = Date.now();
    await counter.count(scoresOf(later, ['org-a', 'org-b', 'org-c'], now - 1_000), now);
    expect(await r.zscore(velocityHotKey(prefix), digestOf(old))).toBeNull();
    const hot = (await collectHot(r, prefix, now)).map((c) => c.digest);
    expect(hot).toContain(digestOf(later));
    expect(hot).not.toContain(digestOf(old));
  });
});
