/**
 * What one organisation's outcomes may hold in the ledger Redis is bounded: past its monthly
 * allowance of ledger writes its reports change Redis no more, every key the ledger writes
 * expires, and a vote costs a measured number of bytes (docs/security.md quotes the bound).
 * Real Redis and ClickHouse, a key prefix of the test's own.
 */
import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LedgerApplier } from '../../services/audit-sink/ledger-learner.ts';
import { LedgerTrust } from '../../services/audit-sink/ledger-trust.ts';
import type { ScoresProgress } from '../../services/audit-sink/scores-progress.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { ledgerVotesKey, LedgerVotes, REPORT_LIFETIME_MS } from '../../shared/capabilities/ledger-votes.ts';
import { canonicalSubject, SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { newOutcomeId } from '../../shared/ids.ts';
import { OUTCOME_RECORD_VERSION, type OutcomeRecord } from '../../shared/outcomes/record.ts';
import { cfg, redis } from '../../infra/harness/fixtures.ts';

const prefix = `frs-test-ledger-${process.pid}-${randomInt(1e9)}`;
const keys = new SubjectKeys('a test secret of at least thirty-two characters');
const freshNumber = () => `+4479${String(randomInt(10 ** 8)).padStart(8, '0')}`;
/** Nothing in flight: the learner never waits for the sink here. */
const caughtUp: ScoresProgress = { watermark: async () => new Map(), reached: async () => true } as never;

function outcome(
  org: string,
  phone: string,
  kind: OutcomeRecord['outcome'] = 'confirmed_fraud',
): OutcomeRecord {
  const now = Date.now();
  return {
    v: OUTCOME_RECORD_VERSION,
    outcome_id: newOutcomeId(now),
    org_id: org,
    received_at_ms: now,
    occurred_at_ms: now,
    outcome: kind,
    subject: { phone_number: phone },
    node_id: 'test',
    request: {},
  };
}

describe('the ledger holds a bounded, expiring amount per organisation', () => {
  const r = redis();
  const ch = createClickHouse(cfg.CLICKHOUSE_URL);
  const applier = (allowance: number) =>
    new LedgerApplier({
      votes: new LedgerVotes(r, prefix, allowance),
      keys,
      trust: new LedgerTrust({ ch, database: cfg.CLICKHOUSE_DATABASE, progress: caughtUp }),
    });
  const votesOf = (phone: string) =>
    r.hgetall(ledgerVotesKey(prefix, keys.key(canonicalSubject('phone', phone)!)));

  afterAll(async () => {
    const left = await r.keys(`${prefix}:*`);
    if (left.length > 0) await r.del(...left);
    r.disconnect();
    await ch.close();
  });

  it('past the monthly allowance, reports change Redis no more; a not_fraud still lifts a vote', async () => {
    const org = `org_bound${randomInt(1e9)}`;
    const phones = Array.from({ length: 5 }, freshNumber);
    await applier(3).applyAll(phones.map((p) => outcome(org, p)));
    const held = await Promise.all(phones.map(votesOf));
    expect(held.map((h) => Object.keys(h).length)).toEqual([1, 1, 1, 0, 0]);
    expect(held[0]![org]).toMatch(/^oc_[0-9a-f]{32} o$/);

    // Lifting never takes allowance and never creates state.
    await applier(3).applyAll([outcome(org, phones[0]!, 'not_fraud'), outcome(org, phones[4]!, 'not_fraud')]);
    expect((await votesOf(phones[0]!))[org]).toMatch(/ w$/);
    expect(await votesOf(phones[4]!)).toEqual({});
  });

  it('every key it writes expires: the votes with their newest report, the allowance with its month', async () => {
    const org = `org_ttl${randomInt(1e9)}`;
    await applier(100).applyAll([outcome(org, freshNumber()), outcome(org, freshNumber())]);
    const written = await r.keys(`${prefix}:*`);
    expect(written.length).toBeGreaterThanOrEqual(3);
    for (const key of written) {
      const ttl = await r.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(REPORT_LIFETIME_MS);
    }
  });

  it('a vote costs at most 256 bytes of Redis memory (the figure the documented bound uses)', async () => {
    const org = `org_mem_${'x'.repeat(16)}`;
    const phones = Array.from({ length: 200 }, freshNumber);
    await applier(1_000).applyAll(phones.map((p) => outcome(org, p)));
    let bytes = 0;
    for (const p of phones) {
      bytes += Number(
        await r.memory('USAGE', ledgerVotesKey(prefix, keys.key(canonicalSubject('phone', p)!))),
      );
    }
    const perVote = bytes / phones.length;
    console.log(`ledger memory per single-vote subject: ${perVote.toFixed(0)} bytes`);
    expect(perVote).toBeLessThanOrEqual(256);
  });
});
