import { Router } from 'express';
import { findExplanation, HistoryUnavailableError } from '../../../shared/audit/explain.ts';
import type { ScoreHistory } from '../../../shared/audit/history.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import {
  EXAMPLE_RESPONSE,
  headerRefs,
  responseRef as r,
  schemaRef,
} from '../../../shared/contract/openapi.ts';
import type { Authenticator, Principal } from '../auth.ts';
import type { ExplainCache } from '../../../shared/audit/explain-cache.ts';
import type { HistoryLookups } from '../../../shared/audit/history-lookups.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { operation } from '../http/operation.ts';

export interface ExplainRouteDeps {
  auth: Authenticator;
  budget: CallerBudget;
  lookups: HistoryLookups;
  history: ScoreHistory;
  /** Recent scores, so explain works before the audit pipeline reached ClickHouse. */
  recent: Pick<ExplainCache, 'get'>;
}

const notFound = (id: string) =>
  new ApiError(404, { code: 'E_SCORE_NOT_FOUND', message: `no score ${id} for this organisation` });

/** GET /v1/explain/{score_id} in the OpenAPI document. */
export const explainOperation = operation('get', '/v1/explain/{score_id}', {
  operationId: 'explain',
  tags: ['scoring'],
  summary: 'Retrieve the retained evidence of a score',
  parameters: [
    {
      name: 'score_id',
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^sc_[0-9a-f]{32}$' },
      example: EXAMPLE_RESPONSE.score_id,
    },
  ],
  responses: {
    '200': {
      description: 'The original response, the full tier-permitted evidence and the request as sent.',
      headers: headerRefs('X-Request-Id'),
      content: { 'application/json': { schema: schemaRef('ExplainResponse') } },
    },
    '401': r('Unauthenticated'),
    '404': r('ScoreNotFound'),
    '429': r('RateLimited'),
    '500': r('Internal'),
    '503': r('HistoryUnavailable'),
  },
});

/**
 * GET /v1/explain/{score_id}: only the organisation that made a score sees it, for 13 months.
 * The lookup (Redis copy, then ClickHouse) is shared/audit/explain.ts, which the portal uses too.
 */
export function explainRoutes(deps: ExplainRouteDeps): Router {
  const router = Router();
  router
    .route(explainOperation.expressPath)
    .get(deps.auth.middleware(), deps.budget.explain, async (req, res) => {
      const principal = res.locals.principal as Principal;
      const id = String(req.params.score_id);
      let found;
      try {
        found = await findExplanation(
          { recent: deps.recent, history: deps.history, acquire: (org) => deps.lookups.acquire(org) },
          principal.org.org_id,
          id,
        );
      } catch (err) {
        if (!(err instanceof HistoryUnavailableError)) throw err;
        throw new ApiError(
          503,
          { code: 'E_HISTORY_UNAVAILABLE', message: 'score history is unavailable; retry shortly' },
          { 'Retry-After': '5' },
        );
      }
      if (!found) throw notFound(id);
      res.json(found);
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
