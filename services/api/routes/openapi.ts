import { Router } from 'express';
import { openApiYaml } from '../../../shared/contract/openapi.ts';
import { methodNotAllowed } from '../http/errors.ts';

/** GET /v1/openapi.yaml: public; generated from the zod schemas that validate requests. */
export function openApiRoutes(): Router {
  const router = Router();
  router
    .route('/v1/openapi.yaml')
    .get((_req, res) => {
      res.type('application/yaml').send(openApiYaml());
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
