import { renderOpenApiYaml, type DeclaredOperation } from '../../../shared/contract/openapi.ts';
import { explainOperation } from '../routes/explain.ts';
import { healthOperations } from '../routes/health.ts';
import { openApiOperation } from '../routes/openapi.ts';
import { outcomeOperation } from '../routes/outcomes.ts';
import { scoreOperation } from '../routes/score.ts';

/**
 * Every operation of the API, as its route module declares it beside the handler, in the
 * document's order. routes.test.ts checks this against what buildApp mounts.
 */
export const API_OPERATIONS: readonly DeclaredOperation[] = [
  scoreOperation,
  outcomeOperation,
  explainOperation,
  ...healthOperations,
  openApiOperation,
];

let cached: string | undefined;

/** The served document (GET /v1/openapi.yaml); built once per process: nothing in it changes at run time. */
export function openApiYaml(): string {
  cached ??= renderOpenApiYaml(API_OPERATIONS);
  return cached;
}
