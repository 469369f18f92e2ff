import type { Band, ContextEffect, Verdict } from '../../vocabulary/score-terms.ts';
import type { CapabilityFinding } from '../definition.ts';
import { defineCapability, DAY } from '../definition.ts';
import type { ListEffect, ListMatch } from './types.ts';

/**
 * What the scorer hands the finding for one request (services/api/scorer.ts): the organisation's
 * most specific live entry for the subject, if any, and whether the node could not load its
 * lists (then `match` is from the lists it held before, or absent). Absent altogether when no
 * entry names the subject and nothing is degraded: no component, and the score is as it was
 * without the feature.
 */
export interface OrgListsData {
  match?: ListMatch;
  degraded: boolean;
}

const CODES = {
  ORG_LIST_ALLOW: "An entry of the organisation's allow list names the subject: the band is at most low.",
  ORG_LIST_DENY: "An entry of the organisation's deny list names the subject: the band is at least high.",
} as const;
type Code = keyof typeof CODES;

/**
 * The organisation's own allow and deny entries (numbers, prefixes, addresses, CIDRs, ASes). It
 * weighs nothing in any version: the points, the percentile and every other organisation's score
 * are as they were. Its effect is on the band alone (applyListMatch, after the gates), and it
 * never feeds the reputation ledger, the velocity counts or billing. `neutral` rather than
 * `adverse` or `clean`, so a list entry meets no evidence gate and lifts no ledger ceiling: a deny
 * makes the band `high`, never `critical` on its own say.
 */
export const orgLists = defineCapability({
  key: 'org_lists',
  description:
    "Whether an entry of the organisation's own allow or deny lists names the subject; it moves the band, never the score.",
  codes: CODES,
  tier: 'verify',
  kind: 'live',
  sources: {},
  subject: 'any',
  // Held on each node and reloaded on every change: nothing ages.
  freshnessS: DAY,
  whenMissing: 'unavailable',
  format:
    'Redis hash per organisation (entry id -> JSON entry), a version counter and a change stream, under the organisation hash tag (shared/orgs/lists-store.ts).',
  replay: {
    verdicts: { ORG_LIST_ALLOW: 'neutral', ORG_LIST_DENY: 'neutral' },
  },
  finding: (_evidence, data: OrgListsData | undefined) => listFinding(data),
});

function listFinding(data: OrgListsData | undefined): CapabilityFinding<Code> | undefined {
  if (data === undefined) return undefined;
  if (data.match)
    return { verdict: 'neutral', detail: data.match.effect === 'allow' ? 'ORG_LIST_ALLOW' : 'ORG_LIST_DENY' };
  // No entry names the subject: no component, as for an organisation without lists.
  return data.degraded ? { verdict: 'unavailable', detail: 'SOURCE_UNAVAILABLE' } : undefined;
}

/**
 * The list effect a score's components carry: its own finding, as a response or a retained
 * score's stored components have it, so a replay applies what the score applied.
 */
export function listEffectOf(
  components: readonly { component: string; verdict: Verdict; detail?: string }[],
): ListEffect | undefined {
  const own = components.find((c) => c.component === orgLists.key);
  return own?.detail === 'ORG_LIST_ALLOW' ? 'allow' : own?.detail === 'ORG_LIST_DENY' ? 'deny' : undefined;
}

const BAND_ORDER: readonly Band[] = ['minimal', 'low', 'medium', 'high', 'critical'];

/** An allow entry caps the band at `low`; a deny entry lifts it to at least `high`. */
export function applyListMatch(band: Band, effect: ListEffect | undefined): Band {
  if (effect === undefined) return band;
  const i = BAND_ORDER.indexOf(band);
  return effect === 'allow' ? BAND_ORDER[Math.min(i, 1)]! : BAND_ORDER[Math.max(i, 3)]!;
}

/**
 * What `context_applied` says of a match: the list and the entry's kind, never its value (the
 * response and its stored copy must not hold the organisation's entries).
 */
export function listContextApplied(match: ListMatch): { effect: ContextEffect; reason: string } {
  return {
    effect: match.effect === 'allow' ? 'band_reduced' : 'band_elevated',
    reason: `organisation ${match.effect} list: ${match.kind} entry`,
  };
}
