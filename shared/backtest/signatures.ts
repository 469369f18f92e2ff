/**
 * Reads the retained scores of a backtest window from ClickHouse as replay signatures
 * (shared/scoring/replay.ts) with how many scores share each, one UTC day per query: ClickHouse
 * groups a day's rows by what the engine reads and Node receives a few hundred distinct
 * signatures, not a million rows, so memory stays bounded by the day's distinct signatures
 * whatever the window.
 *
 * Exact with re-delivered records: a re-delivered record is the same record, so its row has the
 * same signature and label, and each group counts `uniqExact(score_id)`, not rows. A request
 * scored again on a retry of its Idempotency-Key counts once (docs/data.md "One row per answer"):
 * a day leaves out the scores a later one of the same request superseded, up to the next day. That rather than
 * `scores FINAL`, which merges the day's parts in one stream: 50 s against 15 s for a day of 700 000
 * scores on the shared 2-core machine (loadtest/backtest-bench.ts, ClickHouse 18.16). Each score carries its label, the latest outcome reported on its score_id (as in
 * docs/data.md "Band performance and drift"). Only what ClickHouse 18.16 and current servers both
 * accept: visitParamExtract* (no JSONExtract), values quoted by shared/clients/sql.ts.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../clients/clickhouse.ts';
import { quote, quoteIdent } from '../clients/sql.ts';
import { answeredOnly } from '../clickhouse/answered.ts';
import { readRows } from '../clickhouse/rows.ts';
import type { ContextEffect, Verdict } from '../vocabulary/score-terms.ts';
import type { RiskPosture } from '../vocabulary/scoring-input.ts';
import type { ReplaySignature, StoredComponent } from '../scoring/replay.ts';

export interface Window {
  /** First UTC day, YYYY-MM-DD. */
  from: string;
  /** UTC day after the last, YYYY-MM-DD (exclusive). */
  to: string;
  orgId?: string;
}

/** A group of scores of one stored version with one signature, stored result and label. */
export interface SignatureGroup {
  version: string;
  signature: ReplaySignature;
  stored: { raw: number; score: number; band: string };
  /** Latest outcome reported on these scores ('' when none). */
  label: string;
  scores: number;
}

const uint = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(Number);
const GroupRow = z
  .object({
    version: z.string(),
    stored_band: z.string(),
    stored_score: z.number().int(),
    stored_raw: z.number(),
    fired: z.array(z.string()),
    components: z.string(),
    reports: uint,
    organisations: uint,
    posture: z.string(),
    moment: z.string(),
    context: z.number().int(),
    effect: z.string(),
    label: z.string(),
    n: uint,
  })
  .describe('backtest signature group');

const Components = z.array(
  z.looseObject({ component: z.string(), verdict: z.string(), detail: z.string().optional() }),
);

/**
 * The words of engine.ts contextEffect's reasons that tell its effect; `context_applied.effect`
 * alone says `none` when a gate or the band's end stopped the shift, which another version may not.
 * Read only for rows older than the `context_effect` column (migration 010), which keeps the
 * effect before gates for every tier.
 */
export const EFFECT_MARKERS = {
  band_elevated: 'outside the operating countries',
  band_reduced: 'a diaspora corridor of this context',
} as const;

/**
 * The effect before gates from a response's `context_applied` (as JSON): what the SQL computes for
 * a row whose `context_effect` is empty.
 */
export function effectOf(applied: { reason: string } | undefined): ContextEffect | undefined {
  if (!applied) return undefined;
  if (applied.reason.includes(EFFECT_MARKERS.band_elevated)) return 'band_elevated';
  if (applied.reason.includes(EFFECT_MARKERS.band_reduced)) return 'band_reduced';
  return 'none';
}

const POSTURES = new Set(['recall_weighted', 'balanced', 'precision_weighted']);

export const ORG_ID = /^org_[0-9a-z]{1,64}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The days of a window, in order. */
export function windowDays(w: Window): string[] {
  if (!DAY.test(w.from) || !DAY.test(w.to)) throw new Error('dates must be YYYY-MM-DD');
  const out: string[] = [];
  for (let t = Date.parse(`${w.from}T00:00:00Z`); t < Date.parse(`${w.to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * The grouping query of one UTC day. A row's context effect is its `context_effect` where set (the
 * effect before gates, every tier); in rows older than the column, the one `context_applied`'s
 * reason tells, empty without it.
 */
export function dayQuery(database: string, day: string, orgId?: string): string {
  if (!DAY.test(day)) throw new Error('day must be YYYY-MM-DD');
  if (orgId !== undefined && !ORG_ID.test(orgId)) throw new Error('bad organisation id');
  const db = quoteIdent(database);
  const org = orgId === undefined ? '' : ` AND org_id = ${quote(orgId)}`;
  const from = `toDateTime(${quote(`${day} 00:00:00`)}, 'UTC')`;
  const to = `${from} + 86400`;
  return `SELECT version, stored_band, stored_score, stored_raw, fired, components, reports, organisations,
       posture, moment, context, effect, label, uniqExact(score_ref) AS n
FROM
(
    SELECT toString(score_id) AS score_ref, score_version AS version, toString(band) AS stored_band,
           toInt32(score) AS stored_score, raw_risk AS stored_raw, fired_components AS fired,
           visitParamExtractRaw(evidence_json, 'components') AS components,
           visitParamExtractUInt(evidence_json, 'reports') AS reports,
           if(visitParamHas(evidence_json, 'outcome_reports'),
              visitParamExtractUInt(evidence_json, 'outcome_reports'), reports) AS organisations,
           visitParamExtractString(request_json, 'risk_posture') AS posture,
           visitParamExtractString(request_json, 'moment') AS moment,
           toInt32(position(request_json, '"context":{') > 0 OR position(request_json, '"context_id":') > 0) AS context,
           visitParamExtractRaw(response_json, 'context_applied') AS applied,
           multiIf(context_effect != '', context_effect,
                   applied = '', '',
                   position(applied, ${quote(EFFECT_MARKERS.band_elevated)}) > 0, 'band_elevated',
                   position(applied, ${quote(EFFECT_MARKERS.band_reduced)}) > 0, 'band_reduced',
                   'none') AS effect
    FROM ${db}.scores
    WHERE scored_at >= ${from} AND scored_at < ${to}${org}
      ${answeredOnly(`${db}.scores`, `scored_at >= ${from} AND scored_at < ${from} + 2 * 86400${org}`)}
) AS s
ANY LEFT JOIN
(
    SELECT score_id AS score_ref, toString(argMax(outcome, outcome_id)) AS label
    FROM ${db}.outcomes
    WHERE received_at >= ${from} AND score_id != ''${org}
    GROUP BY score_ref
) AS o USING score_ref
GROUP BY version, stored_band, stored_score, stored_raw, fired, components, reports, organisations,
         posture, moment, context, effect, label`;
}

function toGroup(row: z.output<typeof GroupRow>): SignatureGroup {
  const components: StoredComponent[] = Components.parse(JSON.parse(row.components || '[]')).map((c) => ({
    component: c.component,
    verdict: c.verdict as Verdict,
    ...(c.detail !== undefined ? { detail: c.detail } : {}),
  }));
  const signature: ReplaySignature = {
    components,
    fired: row.fired,
    reports: row.reports,
    // What the ledger's ceiling counts: the query falls back to `reports` in rows older than it.
    organisations: row.organisations,
    context: row.context === 1,
    ...(POSTURES.has(row.posture) ? { posture: row.posture as RiskPosture } : {}),
    ...(row.moment ? { moment: row.moment } : {}),
    // Neither context_effect (a row older than the column) nor context_applied in the response
    // (a tier without it): the effect is not retained, and figures.ts infers it.
    ...(row.effect ? { effect: row.effect as ContextEffect } : {}),
  };
  return {
    version: row.version,
    signature,
    stored: { raw: row.stored_raw, score: row.stored_score, band: row.stored_band },
    label: row.label,
    scores: row.n,
  };
}

/** The signature groups of one day. */
export async function readDay(
  ch: ClickHouseClient,
  database: string,
  day: string,
  orgId?: string,
): Promise<SignatureGroup[]> {
  const rs = await ch.query({ query: dayQuery(database, day, orgId), format: 'JSONEachRow' });
  return (await readRows(rs, GroupRow)).map(toGroup);
}
