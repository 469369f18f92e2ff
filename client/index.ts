/**
 * A typed client of the scoring API: openapi-fetch over the types openapi-typescript generates
 * from the served document (client/schema.ts). Paths, request bodies, parameters and every
 * documented response body are checked by the TypeScript compiler:
 *
 *   const api = scoringClient({ baseUrl: 'http://127.0.0.1:8080', apiKey });
 *   const { data, error, response } = await api.POST('/v1/score', {
 *     body: { subject: { phone_number: '+447911123456' } },
 *   });
 *   const explained = await api.GET('/v1/explain/{score_id}', { params: { path: { score_id: data!.score_id } } });
 *
 * A new operation (for example POST /v1/outcomes) needs no code here: serve it in the document,
 * run `npm run client:generate`, and `api.POST('/v1/outcomes', ...)` is typed.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

export type { components, operations, paths } from './schema.ts';

type Schemas = components['schemas'];
export type ScoreRequest = Schemas['ScoreRequest'];
export type ScoreResponse = Schemas['ScoreResponse'];
export type ExplainResponse = Schemas['ExplainResponse'];
export type HealthResponse = Schemas['HealthResponse'];
export type ErrorBody = Schemas['Error'];

export type ScoringClient = Client<paths>;

export interface ScoringClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  baseUrl: string;
  /** The bearer API key; omit it for the public operations only. */
  apiKey?: string;
}

export function scoringClient({ apiKey, headers, ...options }: ScoringClientOptions): ScoringClient {
  return createClient<paths>({
    ...options,
    headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), ...(headers as object) },
  });
}
