import type { DeclaredOperation, OperationSpec } from '../../../shared/contract/openapi.ts';

/** An operation of the OpenAPI document and the Express path its route is mounted at. */
export interface RouteOperation extends DeclaredOperation {
  /** `path` in Express syntax (`{score_id}` becomes `:score_id`): mount the route with this. */
  expressPath: string;
}

/**
 * Declares the OpenAPI operation of a route, beside its handler: the route is mounted at
 * `expressPath`, and services/api/openapi/document.ts puts `spec` into the served document.
 * services/api/openapi/routes.test.ts fails when a mounted route has no declaration or the reverse.
 */
export function operation(
  method: DeclaredOperation['method'],
  path: string,
  spec: OperationSpec,
): RouteOperation {
  return { method, path, spec, expressPath: path.replace(/\{(\w+)\}/g, ':$1') };
}
