import { defineRoute } from '../http/route.ts';

export interface OpenApiRouteDeps {
  /**
   * The served document (services/api/openapi/document.ts's), passed in because that module
   * renders this route's definition too.
   */
  openApiDocument: () => string;
}

/** GET /v1/openapi.yaml: public. */
export const openApiRoute = defineRoute({
  method: 'get',
  path: '/v1/openapi.yaml',
  operationId: 'openapi',
  tags: ['operations'],
  summary: 'This document',
  auth: 'public',
  responses: {
    200: {
      description: 'The OpenAPI 3.1 document of the deployed API.',
      // A YAML body parses to a mapping: `type: string` would fail any client that parses it.
      body: {
        mediaType: 'application/yaml',
        jsonSchema: { type: 'object', additionalProperties: true, description: 'An OpenAPI 3.1 document.' },
      },
    },
  },
  // The per-address budget of refused requests applies to every route.
  errors: ['NotFound', 'RateLimited', 'MethodNotAllowed'],
  handler: (deps: OpenApiRouteDeps) => (_input, res) => {
    res.type('application/yaml').send(deps.openApiDocument());
  },
});
