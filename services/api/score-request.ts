import { ApiError, type ErrorItem } from '../../shared/contract/errors.ts';
import type { Context, ScoreRequest } from '../../shared/contract/request.ts';
import type { Tier } from '../../shared/vocabulary/score-terms.ts';
import type { ScoreVersion } from '../../shared/scoring/engine.ts';
import { entitlementErrors } from '../../shared/contract/entitlements.ts';
import { findVersion } from '../../shared/scoring/versions.ts';

/**
 * Request checks of POST /v1/score (what the caller sent: 422, 403, 409), apart from the controls
 * (rate, credits, idempotency: `controls/`), which decide whether a valid request is admitted.
 */

/** A request that passed every check, with what it refers to resolved. */
export interface CheckedScoreRequest {
  request: ScoreRequest;
  /** The context to apply: the inline one if sent, else the saved one `context_id` names. */
  context?: Context;
  shadowVersion?: ScoreVersion;
  /** The Idempotency-Key it was sent with: the audit record keeps its digest, never the key. */
  idempotencyKey?: string;
}

/**
 * The checks of POST /v1/score beyond its schema (which the route's definition applies first, with
 * the Idempotency-Key header: services/api/http/route.ts), in this order:
 * 1. 422: the saved context a lone `context_id` names, and the existence of
 *    `options.shadow_version`, reported together;
 * 2. 403: options the caller's tier does not include (a version the tier may not use is not
 *    looked up, so 422 about it is only given to a tier that has the option);
 * 3. 409: a retired shadow version.
 */
export function checkScoreRequest(
  request: ScoreRequest,
  idempotencyKey: string | undefined,
  org: { tier: Tier; entitlements: readonly string[]; contexts: Record<string, Context> },
  /** Status in force (a version retired through the admin CLI is retired here too). */
  statusOf: (id: string) => string | undefined = (id) => findVersion(id)?.status,
): CheckedScoreRequest {
  const forbidden = entitlementErrors(request, org.tier, org.entitlements);
  const errors: ErrorItem[] = [];
  let context = request.context;
  if (context === undefined && request.context_id !== undefined) {
    // Saved contexts travel with the organisation record each node holds in memory.
    const saved = Object.hasOwn(org.contexts, request.context_id)
      ? org.contexts[request.context_id]
      : undefined;
    if (saved) context = saved;
    else {
      errors.push({
        code: 'E_UNKNOWN_CONTEXT',
        message: `no saved context '${request.context_id}' for this organisation`,
        field: 'context_id',
      });
    }
  }
  const shadowId = request.options?.shadow_version;
  const shadowVersion = shadowId !== undefined && forbidden.length === 0 ? findVersion(shadowId) : undefined;
  if (shadowId !== undefined && forbidden.length === 0 && !shadowVersion) {
    errors.push({
      code: 'E_UNKNOWN_SCORE_VERSION',
      message: `unknown score version '${shadowId}'`,
      field: 'options.shadow_version',
    });
  }
  if (errors.length > 0) throw new ApiError(422, errors);
  if (forbidden.length > 0) throw new ApiError(403, forbidden);
  if (shadowVersion && statusOf(shadowVersion.id) === 'retired') {
    throw new ApiError(409, {
      code: 'E_SCORE_VERSION_RETIRED',
      message: `score version '${shadowVersion.id}' is retired`,
      field: 'options.shadow_version',
    });
  }
  return {
    request,
    ...(context ? { context } : {}),
    ...(shadowVersion ? { shadowVersion } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
}
