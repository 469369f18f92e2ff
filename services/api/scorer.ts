import { serializeAuditRecord } from '../../shared/audit/record.ts';
import type { ScoreRequest } from '../../shared/contract/request.ts';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { newScoreId } from '../../shared/ids.ts';
import type { ResolutionData } from '../../shared/resolution/resolution-data.ts';
import { score } from '../../shared/scoring/engine.ts';
import { gatherEvidence } from '../../shared/scoring/evidence.ts';
import { shapeResponse, tierEvidence } from '../../shared/scoring/shape.ts';
import { includedIn } from '../../shared/scoring/tiers.ts';
import { DEFAULT_VERSION } from '../../shared/scoring/versions.ts';
import type { Principal } from './auth.ts';
import type { Admitted } from './score-admission.ts';

export interface ScorerDeps {
  nodeId: string;
  /** Takes the serialized audit record of each score; must not block (see AuditPublisher). */
  publish: (scoreId: string, recordJson: string) => void;
  /** The current in-memory resolution data; a getter so a refresh can swap it between requests. */
  resolution: () => ResolutionData;
}

/**
 * Scores a validated request from in-memory data only, hands the audit record to the publisher,
 * and returns the response body as JSON (serialized once, reused in the audit record).
 */
export class Scorer {
  private readonly deps: ScorerDeps;

  constructor(deps: ScorerDeps) {
    this.deps = deps;
  }

  score(admitted: Admitted, principal: Principal, startedAt: number): string {
    const { request: req, context, shadowVersion } = admitted;
    const { tier, entitlements } = principal.org;
    const evidence = gatherEvidence(
      req.subject,
      this.deps.resolution(),
      includedIn(tier, entitlements).has('reputation_ledger'),
    );

    const version = DEFAULT_VERSION;
    const input = { evidence, context, contextId: req.context_id };
    const scored = score({ ...input, version });
    const shadowScored = shadowVersion ? score({ ...input, version: shadowVersion }) : undefined;

    const nowMs = Date.now();
    const scoreId = newScoreId(nowMs);
    const response: ScoreResponse = shapeResponse({
      scoreId,
      tier,
      entitlements,
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

    const body = JSON.stringify(response);
    const record = serializeAuditRecord(
      {
        v: 1,
        score_id: scoreId,
        org_id: principal.org.org_id,
        tier,
        scored_at: new Date(nowMs).toISOString(),
        scored_at_ms: nowMs,
        node_id: this.deps.nodeId,
        latency_ms: response.latency_ms ?? 0,
        request: requestAsSent(req),
        evidence: tierEvidence(scored, tier, entitlements),
      },
      body,
    );
    this.deps.publish(scoreId, record);
    return body;
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
