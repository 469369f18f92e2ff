/**
 * The OpenAPI document: info and version, the registries, and what the operation definitions
 * give (operation.ts: paths and component schemas; openapi-responses.ts: the shared headers and
 * error answers). The definitions are the API's routes (services/api/routes/api-routes.ts), which
 * services/api/openapi/document.ts renders into the served document.
 */
import { stringify } from 'yaml';
import { COMPONENT_KEYS, REASON_CODES } from '../scoring/reason-codes.ts';
import { BENIGN_EXCLUSIONS } from '../vocabulary/benign-exclusions.ts';
import { SCORE_VERSIONS, DEFAULT_VERSION } from '../scoring/versions.ts';
import { ERROR_CODES } from './errors.ts';
import { HEADERS, RESPONSES } from './openapi-responses.ts';
import type { ScoreResponse } from './response.ts';
import { componentSchemas, pathsOf, type OperationDefinition } from './operation.ts';
import { callerIdIntegrity } from '../capabilities/caller-id-integrity/index.ts';
import { ndcRangeRisk } from '../capabilities/ndc-range-risk/index.ts';
import { reputationLedger } from '../capabilities/reputation-ledger/index.ts';

/** The contract's own semver: bump minor for additions, major for anything a client could break on. */
export const CONTRACT_VERSION = '1.4.0';

/** The example score of the document (its `score_id` is the example of explain and outcomes too). */
export const EXAMPLE_RESPONSE = {
  score_id: 'sc_019a4f0e6b3c7d2e8f1a2b3c4d5e6f70',
  tier: 'assess',
  score_version: '2026.11.0',
  score: 82,
  score_type: 'ranking',
  score_basis: 'riskier than 82 % of subjects in the reference population of 2026.11.0',
  band: 'critical',
  recommended_action: 'block',
  coverage: 'strong',
  subject: { phone_number: { e164: '+444012345678', valid: false, allocated: false } },
  components: [
    { component: callerIdIntegrity.key, verdict: 'adverse', contribution: 45, detail: 'CLI_IMPOSSIBLE' },
    { component: ndcRangeRisk.key, verdict: 'no_match', contribution: 0, detail: 'NDC_RANGE_UNKNOWN' },
  ],
  primary_risk_factor: { code: 'CLI_IMPOSSIBLE', narrative: REASON_CODES.CLI_IMPOSSIBLE },
  benign_exclusions: [],
  suppressed: [
    { component: reputationLedger.key, available_in: 'bureau' },
    { component: 'cluster_id', available_in: 'bureau' },
    { component: 'shadow', available_in: 'bureau' },
  ],
  client_reference: 'call-7731',
  disclosure:
    'This score is a ranking of the subject against a reference population, not a probability of fraud. ' +
    'Use it with your own policy; a low score with thin coverage means the subject is unwatched, not clean.',
  degraded_sources: [],
  latency_ms: 1,
} satisfies ScoreResponse;

function document(operations: readonly OperationDefinition[]): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fraud Risk Scoring API',
      version: CONTRACT_VERSION,
      summary: 'Tiered fraud risk rankings for phone numbers and IP addresses.',
      description:
        'Scores are rankings relative to a frozen reference population of their `score_version`, never ' +
        'probabilities. Every response carries `X-Request-Id`; every error body has the `Error` shape. ' +
        'A method a route does not accept answers 405 (`#/components/responses/MethodNotAllowed`) with `Allow`; ' +
        'an unknown route answers 404 `E_NOT_FOUND`. The registries of component keys, reason codes, benign ' +
        'exclusions and error codes are published at the document root as `x-component-keys`, `x-reason-codes`, ' +
        '`x-benign-exclusions` and `x-error-codes`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'Local stack (`npm start`)' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'scoring', description: 'Score subjects and retrieve stored scores.' },
      { name: 'outcomes', description: 'Report what happened to a scored subject.' },
      {
        name: 'lists',
        description:
          "The organisation's own allow and deny entries: an allow caps its scores' band at `low`, a deny lifts it to at least `high`.",
      },
      { name: 'operations', description: 'Health, probes and this document. Public.' },
    ],
    paths: pathsOf(operations),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An API key (`frs_live_` + 32 base62 characters) from the portal's Keys page. The tier comes from the key.",
        },
      },
      schemas: componentSchemas(operations),
      headers: HEADERS,
      responses: RESPONSES,
    },
    'x-component-keys': COMPONENT_KEYS,
    'x-reason-codes': REASON_CODES,
    'x-benign-exclusions': BENIGN_EXCLUSIONS,
    'x-error-codes': ERROR_CODES,
    'x-score-versions': SCORE_VERSIONS.map((v) => ({
      id: v.id,
      status: v.status,
      default: v === DEFAULT_VERSION,
    })),
  };
}

/** The OpenAPI document as YAML: the contract-wide parts above and the operations' definitions. */
export function renderOpenApiYaml(operations: readonly OperationDefinition[]): string {
  return stringify(document(operations), { aliasDuplicateObjects: false, lineWidth: 0 });
}
