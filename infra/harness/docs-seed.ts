import { readFileSync } from 'node:fs';

/** The organisation and score id the queries of docs/data.md are written for. */
export const DOC_ORG = 'org_00000000000000a1';
export const DOC_SCORE_ID = 'sc_01a1f8704f59712e8cb15a4fff010e8d';

/**
 * The score id docsSeedRows(now) stores in place of DOC_SCORE_ID: the same id re-timed to `now`.
 * A score id begins with its time, and the doc's own id ages out of every "last 7 days" summary a
 * week after it was written, so the seed and the queries use one made for the run.
 */
export function docScoreId(now: number): string {
  return `sc_${(now * 1000 + 345).toString(16).padStart(12, '0')}${DOC_SCORE_ID.slice(15)}`;
}

/**
 * Every ```sql block of docs/data.md, in order: each must run as written, but for the doc's
 * example score id, which is replaced by `scoreId` when one is given (see docScoreId).
 */
export function docsQueries(scoreId?: string): string[] {
  const doc = readFileSync('docs/data.md', 'utf8');
  return [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) =>
    scoreId ? m[1]!.trim().replaceAll(DOC_SCORE_ID, scoreId) : m[1]!.trim(),
  );
}

/** The network-velocity query of docs/data.md (its `sql velocity` block): it needs 3 organisations. */
export function docsVelocityQuery(): string {
  const m = /```sql velocity\n([\s\S]*?)```/.exec(readFileSync('docs/data.md', 'utf8'));
  if (!m) throw new Error('docs/data.md has no `sql velocity` block');
  return m[1]!.trim();
}

/** For each of docsQueries(), the first clause of the sentence that introduces it in the doc. */
export function docsQueryTitles(): string[] {
  const doc = readFileSync('docs/data.md', 'utf8');
  return [...doc.matchAll(/```sql\n/g)].map((m) => {
    const before =
      doc
        .slice(0, m.index)
        .trimEnd()
        .split(/\n\s*\n/)
        .pop() ?? '';
    const text = before
      .replace(/\s+/g, ' ')
      .split(/: | \(|\. /)[0]!
      .replace(/[:.]$/, '');
    return text.length > 100 ? `${text.slice(0, 99)}…` : text;
  });
}

/**
 * Rows for DOC_ORG that give every docs query something to return: 11 distinct scores over the
 * last seconds (one of them docScoreId(now), the doc's example re-timed) plus a re-delivered copy of the first,
 * which no exact query may count twice, and two scores of one retried request, which count once.
 */
export function docsSeedRows(now = Math.floor(Date.now() / 1000)): Record<string, unknown>[] {
  const row = (i: number, extra: Record<string, unknown>) => ({
    score_id: `sc_${String(i).padStart(32, '0')}`,
    org_id: DOC_ORG,
    scored_at: now - i,
    scored_at_ms: (now - i) * 1000,
    tier: 'assess',
    score_version: '2026.11.0',
    score: i * 9,
    band: ['minimal', 'low', 'medium', 'high', 'critical'][i % 5],
    recommended_action: 'watch',
    coverage: 'partial',
    primary_risk_factor: '',
    degraded_sources: [],
    has_phone: 1,
    has_ip: i % 2,
    latency_ms: 2 + i,
    request_json: JSON.stringify({
      subject: { phone_number: '+447911123456' },
      context: { collection_point: { moment: 'signup' } },
      options: { explain: i % 2 === 0 },
    }),
    // The context names no geography: its effect is none.
    context_effect: 'none',
    inserted_at: now,
    ...extra,
  });
  const rows = Array.from({ length: 10 }, (_, i) =>
    row(i + 1, {
      primary_risk_factor: i % 3 ? 'NDC_RANGE_HIGH_RISK' : '',
      degraded_sources: i % 4 ? [] : ['ip_anonymiser'],
      raw_risk: i * 5,
      fired_components: i % 3 ? ['NDC_RANGE_ELEVATED'] : [],
      // Half the rows were scored with a silent challenger beside the default.
      challenger_version: i % 2 ? '2026.12.1' : '',
      challenger_score: i % 2 ? i * 8 : null,
      challenger_band: i % 2 ? ['minimal', 'low', 'medium', 'high', 'critical'][(i + 1) % 5] : '',
    }),
  );
  rows.push(row(0, { score_id: docScoreId(now) }));
  rows.push(rows[0]!);
  // One request with an Idempotency-Key scored twice: its first node died before answering and the
  // retry, 5 s later, was scored again (docs/data.md "One row per answer"). Ids begin with their time.
  const retried = 'e3'.repeat(32);
  for (const [i, ms] of [
    [11, (now - 20) * 1000],
    [12, (now - 15) * 1000],
  ] as const)
    rows.push(
      row(i, {
        score_id: `sc_${ms.toString(16).padStart(12, '0')}7${String(i).padStart(19, '0')}`,
        scored_at: ms / 1000,
        scored_at_ms: ms,
        request_digest: retried,
      }),
    );
  return rows;
}

/** Distinct scores in docsSeedRows: what `count()` over DOC_ORG's rows of `scores FINAL` answers. */
export const DOC_DISTINCT_SCORES = 13;

/** Requests answered in docsSeedRows: what a query with the rule of "One row per answer" counts. */
export const DOC_ANSWERED = 12;
