import { BANDS } from '../../shared/contract/response.ts';
import { SCORE_ID_PATTERN } from '../../shared/ids.ts';
import { maskSubjectValue } from './views/subject-mask.ts';

/**
 * One row of the Activity page, as the feed keeps it. The subject is stored masked: the list
 * lives in the durable Redis for days, and the page reveals a subject from the score's own
 * record (the explain copy or ClickHouse), never from this list.
 */
export interface ScoreSummary {
  score_id: string;
  at: number;
  subject: { phone_number?: string; ip_address?: string };
  score: number;
  band: string;
  action: string;
  factor: string | null;
  degraded: string[];
}

export interface ProjectedScore {
  org: string;
  summary: ScoreSummary;
}

const BAND_SET: ReadonlySet<string> = new Set(BANDS);
const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The eight fields the page shows, read from one `scores.v1` record, or undefined when the record
 * lacks one of them. No schema parse of the whole envelope: the sink validates every record for
 * storage and quarantines bad ones, and the page needs only these fields to be of the right type
 * (checked here, so a bad record is left out rather than shown half).
 */
export function projectScore(value: string): ProjectedScore | undefined {
  let r: Record<string, unknown> | undefined;
  try {
    r = obj(JSON.parse(value));
  } catch {
    return undefined;
  }
  const response = obj(r?.response);
  if (!r || !response) return undefined;
  const { score_id: id, org_id: org, scored_at_ms: at } = r;
  const { score, band, recommended_action: action, degraded_sources: degraded } = response;
  if (
    typeof id !== 'string' ||
    !SCORE_ID_PATTERN.test(id) ||
    typeof org !== 'string' ||
    org === '' ||
    typeof at !== 'number' ||
    !Number.isSafeInteger(at) ||
    typeof score !== 'number' ||
    typeof band !== 'string' ||
    !BAND_SET.has(band) ||
    typeof action !== 'string' ||
    !Array.isArray(degraded) ||
    !degraded.every((d) => typeof d === 'string')
  )
    return undefined;
  const subject = obj(obj(r.request)?.subject) ?? {};
  const phone = str(subject.phone_number);
  const ip = str(subject.ip_address);
  const factor = str(obj(obj(r.evidence)?.primary_risk_factor)?.code) ?? null;
  return {
    org,
    summary: {
      score_id: id,
      at,
      subject: {
        ...(phone !== undefined && { phone_number: maskSubjectValue('phone_number', phone) }),
        ...(ip !== undefined && { ip_address: maskSubjectValue('ip_address', ip) }),
      },
      score,
      band,
      action,
      factor,
      degraded: degraded as string[],
    },
  };
}
