import { afterAll, describe, expect, it } from 'vitest';
import {
  RECENT_BUCKET_MS,
  RECENT_TTL_SECONDS,
  RecentScores,
  recentScoresKey,
} from '../../services/api/recent-scores.ts';
import { newScoreId } from '../../shared/ids.ts';
import { createLogger } from '../../shared/logger.ts';
import { explainRedis } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/wait.ts';

/** The recent-score index on the real cache server: what outcomes find fresh scores by. */
describe('recent-score index', () => {
  const redis = explainRedis();
  const log = createLogger('test', 'silent');
  afterAll(() => redis.disconnect());

  it('keeps score_id -> subject and time per organisation, under an expiry of TTL to TTL + one bucket', async () => {
    const index = new RecentScores(redis, log);
    const org = `org_recent_${Date.now()}`;
    const now = Date.now();
    const id = newScoreId(now);
    const both = { phone_number: '+447911123456', ip_address: '2001:db8::1' };
    await waitFor('the cache connection', async () => redis.status === 'ready');
    index.put(org, id, { scored_at_ms: now, subject: both });
    const ipOnly = newScoreId(now);
    index.put(org, ipOnly, { scored_at_ms: now, subject: { ip_address: '81.2.69.142' } });

    expect(await waitFor('the entry', () => index.get(org, id))).toEqual({
      scored_at_ms: now,
      subject: both,
    });
    expect(await index.get(org, ipOnly)).toEqual({
      scored_at_ms: now,
      subject: { ip_address: '81.2.69.142' },
    });
    // Another organisation's id is not found under this one, nor an unknown id.
    expect(await index.get(`${org}_other`, id)).toBeNull();
    expect(await index.get(org, newScoreId(now))).toBeNull();

    const key = recentScoresKey(org, Math.floor(now / RECENT_BUCKET_MS));
    expect(key).toMatch(/^frs:recent:\{org_recent_\d+\}:\d+$/);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan((RECENT_TTL_SECONDS - 5) * 1000);
    expect(ttl).toBeLessThanOrEqual(RECENT_TTL_SECONDS * 1000 + RECENT_BUCKET_MS);
  });

  it('writes every entry of a turn, across organisations and past one command of entries', async () => {
    // A turn's entries are sent per key as one command of at most 500 entries: 1 203 entries of
    // two organisations in one turn take four commands, and none may be lost or cross over.
    const index = new RecentScores(redis, log);
    const orgs = [`org_recent_turn_a_${Date.now()}`, `org_recent_turn_b_${Date.now()}`];
    const now = Date.now();
    await waitFor('the cache connection', async () => redis.status === 'ready');
    const written = Array.from({ length: 1_203 }, (_, i) => ({
      org: orgs[i % 7 === 0 ? 1 : 0]!,
      id: newScoreId(now),
      ip: `192.0.2.${i % 250}`,
    }));
    for (const w of written) index.put(w.org, w.id, { scored_at_ms: now, subject: { ip_address: w.ip } });
    await waitFor('the last entry', () => index.get(written.at(-1)!.org, written.at(-1)!.id));
    for (const w of written)
      expect(await index.get(w.org, w.id)).toEqual({ scored_at_ms: now, subject: { ip_address: w.ip } });
    expect(await index.get(orgs[1]!, written[1]!.id)).toBeNull();
    const bucket = Math.floor(now / RECENT_BUCKET_MS);
    expect(await redis.hlen(recentScoresKey(orgs[0]!, bucket))).toBe(
      written.filter((w) => w.org === orgs[0]).length,
    );
    expect(await redis.pttl(recentScoresKey(orgs[1]!, bucket))).toBeGreaterThan(
      (RECENT_TTL_SECONDS - 5) * 1000,
    );
    expect(index.skipped).toBe(0);
  });

  it('lets entries expire', async () => {
    const index = new RecentScores(redis, log, { ttlSeconds: 1, bucketMs: 1_000 });
    const org = `org_recent_expiry_${Date.now()}`;
    const now = Date.now();
    const id = newScoreId(now);
    index.put(org, id, { scored_at_ms: now, subject: { phone_number: '+447911123456' } });
    expect(await waitFor('the entry', () => index.get(org, id))).not.toBeNull();
    // Bucket end plus one second: gone within about two seconds.
    await waitFor('the entry to expire', async () => (await index.get(org, id)) === null, 5_000);
    expect(await redis.exists(recentScoresKey(org, Math.floor(now / 1_000)))).toBe(0);
  });
});
