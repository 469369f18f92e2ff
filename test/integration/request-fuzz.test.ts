import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateScoreRequest } from '../../shared/contract/validation.ts';
import { newScoreId } from '../../shared/ids.ts';
import { toRow } from '../../services/audit-sink/sink.ts';
import { cfg, clickhouse } from '../../infra/harness/fixtures.ts';

/**
 * Property: whatever strings a request's free-text fields hold, validation either refuses it
 * (422 items, each naming its field) or the audit row the sink makes of it is accepted by the real
 * ClickHouse and reads back exactly as sent. The row goes to a scratch copy of `scores`.
 */

/** Characters a hostile caller reaches for, mixed with ordinary ones so many requests pass. */
const NASTY = [
  '\ud800',
  '\udfff',
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u202e',
  '\u2067',
  '\u200f',
  '\ufdd0',
  '\ufffe',
  '\uffff',
  '\u{10ffff}',
  '\u{1f600}',
  "'",
  '"',
  '\\',
  '%',
  'é',
  'a',
  '東',
];

const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: fc.constantFrom(...NASTY), maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ maxLength }),
  );

const request = fc.record(
  {
    subject: fc.constant({ phone_number: '+447911123456' }),
    client_reference: text(300),
    context_id: text(140),
    context: fc.record({
      sector: text(70),
      geography: fc.constant({}),
      collection_point: fc.constant({}),
      action_policy: fc.dictionary(text(70), text(260), { maxKeys: 3 }),
    }),
  },
  { requiredKeys: ['subject'] },
);

describe('request schema fuzzer against the real ClickHouse', () => {
  const ch = clickhouse();
  const table = `${cfg.CLICKHOUSE_DATABASE}.fuzz_scores_${process.pid}`;

  beforeAll(async () => {
    await ch.command({ query: `CREATE TABLE ${table} AS ${cfg.CLICKHOUSE_DATABASE}.scores ENGINE = Memory` });
  });

  afterAll(async () => {
    await ch.command({ query: `DROP TABLE IF EXISTS ${table}` });
    await ch.close();
  });

  it('every accepted request is storable as sent; every refused one names its fields', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(request, async (body) => {
        const validated = validateScoreRequest(body, undefined);
        if (!validated.ok) {
          for (const e of validated.errors) expect(e.field ?? '(omitted)', e.message).toBeTruthy();
          return;
        }
        accepted++;
        const scoreId = newScoreId();
        const now = Date.now();
        const row = toRow({
          v: 1,
          score_id: scoreId,
          org_id: 'org_fuzz',
          tier: 'assess',
          scored_at_ms: now,
          node_id: 'fuzz',
          latency_ms: 1,
          request: body,
          response: {
            score_version: '2026.11.0',
            score: 1,
            band: 'minimal',
            recommended_action: 'allow',
            degraded_sources: [],
            ...(body.client_reference !== undefined ? { client_reference: body.client_reference } : {}),
          },
          evidence: {},
        });
        await ch.insert({
          table,
          values: [{ ...row, inserted_at: Math.floor(now / 1000) }],
          format: 'JSONEachRow',
        });
        const rs = await ch.query({
          query: `SELECT client_reference, request_json FROM ${table} WHERE score_id = '${scoreId}'`,
          format: 'JSONEachRow',
        });
        const [stored] = await rs.json<{ client_reference: string; request_json: string }>();
        expect(stored?.client_reference).toBe(body.client_reference ?? '');
        expect(JSON.parse(stored!.request_json)).toEqual(body);
      }),
      { numRuns: 400 },
    );
    // The property is only worth something if many requests got as far as ClickHouse.
    expect(accepted).toBeGreaterThan(40);
  });
});
