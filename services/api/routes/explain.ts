import { z } from 'zod';
import { findExplanation, HistoryUnavailableError } from '../../../shared/audit/explain.ts';
import type { ScoreHistory } from '../../../shared/audit/history.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import { EXAMPLE_RESPONSE } from '../../../shared/contract/openapi.ts';
import { json } from '../../../shared/contract/operation.ts';
import { ExplainResponse } from '../../../shared/contract/response.ts';
import { SCORE_ID_PATTERN } from '../../../shared/ids.ts';
import type { ExplainCache } from '../../../shared/audit/explain-cache.ts';
import type { HistoryLookups } from '../../../shared/audit/history-lookups.ts';
import { defineRoute } from '../http/route.ts';

export interface ExplainRouteDeps {
  lookups: HistoryLookups;
  history: ScoreHistory;
  /** Recent scores, so explain works before the audit pipeline reached ClickHouse. */
  recent: Pick<ExplainCache, 'get'>;
}

const notFound = (id: string) =>
  new ApiError(404, { code: 'E_SCORE_NOT_FOUND', message: `no score ${id} for this organisation` });

/**
 * GET /v1/explain/{score_id}: only the organisation that made a score sees it, for 13 months.
 * The lookup (Redis copy, then ClickHouse) is shared/audit/explain.ts, which the portal uses too.
 */
export const explainRoute = defineRoute({
  method: 'get',
  path: '/v1/explain/{score_id}',
  operationId: 'explain',
  tags: ['scoring'],
  summary: 'Retrieve the retained evidence of a score',
  auth: 'bearer',
  budget: 'explain',
  params: { score_id: { schema: z.string().regex(SCORE_ID_PATTERN), example: EXAMPLE_RESPONSE.score_id } },
  responses: {
    200: {
      description: 'The original response, the full tier-permitted evidence and the request as sent.',
      body: json(ExplainResponse),
    },
  },
  errors: ['Unauthenticated', 'ScoreNotFound', 'RateLimited', 'Internal', 'HistoryUnavailable'],
  handler:
    (deps: ExplainRouteDeps) =>
    async ({ principal, params }, res) => {
      const id = params.score_id;
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
    },
});
