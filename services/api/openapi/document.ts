import { renderOpenApiYaml } from '../../../shared/contract/openapi.ts';
import { API_ROUTES } from '../routes/api-routes.ts';

let cached: string | undefined;

/**
 * The served document (GET /v1/openapi.yaml), rendered from the definitions of the routes the app
 * mounts; built once per process: nothing in it changes at run time.
 */
export function openApiYaml(): string {
  cached ??= renderOpenApiYaml(API_ROUTES.map((r) => r.operation));
  return cached;
}
