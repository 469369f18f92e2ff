import { Router } from 'express';
import { headerRefs, responseRef as r } from '../../../shared/contract/openapi.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { operation } from '../http/operation.ts';

/** GET /v1/openapi.yaml in the OpenAPI document. */
export const openApiOperation = operation('get', '/v1/openapi.yaml', {
  operationId: 'openapi',
  tags: ['operations'],
  summary: 'This document',
  security: [],
  responses: {
    '200': {
      description: 'The OpenAPI 3.1 document of the deployed API.',
      headers: headerRefs('X-Request-Id'),
      // A YAML body parses to a mapping: `type: string` would fail any client that parses it.
      content: {
        'application/yaml': {
          schema: { type: 'object', additionalProperties: true, description: 'An OpenAPI 3.1 document.' },
        },
      },
    },
    '404': r('NotFound'),
    // The per-address budget of refused requests applies to every route.
    '429': r('RateLimited'),
    '405': r('MethodNotAllowed'),
  },
});

/**
 * GET /v1/openapi.yaml: public. `document` is services/api/openapi/document.ts's, passed in
 * because that module collects this route's operation too.
 */
export function openApiRoutes(document: () => string): Router {
  const router = Router();
  router
    .route(openApiOperation.expressPath)
    .get((_req, res) => {
      res.type('application/yaml').send(document());
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
