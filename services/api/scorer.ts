import type { AuditRecord } from '../../shared/audit/record.ts';
import { ApiError } from '../../shared/contract/errors.ts';
import type { ScoreRequest } from '../../shared/contract/request.ts';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { newScoreId } from '../../shared/ids.ts';
import { resolveIp } from '../../shared/resolution/ip.ts';
import { resolvePhone } from '../../shared/resolution/phone.ts';
import type { ResolutionData } from '../../shared/resolution/resolution-data.ts';
import { score, type Evidence } from '../../shared/scoring/engine.ts';
import { shapeResponse, tierEvidence } from '../../shared/scoring/shape.ts';
import { includedIn } from '../../shared/scoring/tiers.ts';
import { defaultVersion, findVersion, type ScoreVersion } from '../../shared/scoring/versions.ts';
import type { Principal } from './auth.ts';

export interface ScorerDeps {
  nodeId: string;
  publish: (record: AuditRecord) => void;
  /** The current in-memory resolution data; a getter so a refresh can swap it between requests. */
  resolution: () => ResolutionData;
}

/** Checks that need the caller's tier and the version registry; they come after schema validation. */
export function checkEntitlements(req: ScoreRequest, principal: Principal): ScoreVersion | undefined {
  const shadowId = req.options?.shadow_version;
  if (shadowId === undefined) return undefined;
  if (!includedIn(principal.org.tier).has('shadow')) {
    throw new ApiError(403, {
      code: 'E_ENTITLEMENT_REQUIRED',
      message: `options.shadow_version needs the bureau tier; this key's tier is ${principal.org.tier}`,
      field: 'options.shadow_version',
    });
  }
  const version = findVersion(shadowId);
  if (!version) {
    throw new ApiError(422, {
      code: 'E_UNKNOWN_SCORE_VERSION',
      message: `unknown score version '${shadowId}'`,
      field: 'options.shadow_version',
    });
  }
  if (version.status === 'retired') {
    throw new ApiError(409, {
      code: 'E_SCORE_VERSION_RETIRED',
      message: `score version '${shadowId}' is retired`,
      field: 'options.shadow_version',
    });
  }
  return version;
}

/** Scores a validated request from in-memory data only, and hands the audit record to the publisher. */
export class Scorer {
  private readonly deps: ScorerDeps;

  constructor(deps: ScorerDeps) {
    this.deps = deps;
  }

  score(req: ScoreRequest, principal: Principal, shadowVersion: ScoreVersion | undefined, startedAt: number) {
    const tier = principal.org.tier;
    const evidence: Evidence = {};
    const data = this.deps.resolution();
    if (req.subject.phone_number) evidence.phone = resolvePhone(req.subject.phone_number, data.carriers);
    if (req.subject.ip_address) evidence.ip = resolveIp(req.subject.ip_address, data.networks);

    const version = defaultVersion();
    const input = { evidence, context: req.context, contextId: req.context_id };
    const scored = score({ ...input, version });
    const shadowScored = shadowVersion ? score({ ...input, version: shadowVersion }) : undefined;

    const nowMs = Date.now();
    const scoreId = newScoreId(nowMs);
    const response: ScoreResponse = shapeResponse({
      scoreId,
      tier,
      versionId: version.id,
      scored,
      explain: req.options?.explain ?? true,
      clientReference: req.client_reference,
      shadow: shadowScored && {
        score_version: shadowVersion!.id,
        score: shadowScored.score,
        band: shadowScored.band,
      },
      latencyMs: Math.max(0, Math.round(performance.now() - startedAt)),
    });

    this.deps.publish({
      v: 1,
      score_id: scoreId,
      org_id: principal.org.org_id,
      tier,
      scored_at: new Date(nowMs).toISOString(),
      scored_at_ms: nowMs,
      node_id: this.deps.nodeId,
      latency_ms: response.latency_ms ?? 0,
      request: requestAsSent(req),
      response,
      evidence: tierEvidence(scored, tier),
    });
    return response;
  }
}

/** The request as the caller sent it (the key travels in a header and is never part of this). */
function requestAsSent(req: ScoreRequest): Record<string, unknown> {
  const out: Record<string, unknown> = { subject: req.subject };
  if (req.context_id !== undefined) out.context_id = req.context_id;
  if (req.context !== undefined) out.context = req.context;
  if (req.options !== undefined) out.options = req.options;
  if (req.client_reference !== undefined) out.client_reference = req.client_reference;
  return out;
}
