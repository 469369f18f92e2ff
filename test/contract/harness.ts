import { parse } from 'yaml';
import { z } from 'zod';
import type { Tier } from '../../shared/vocabulary/score-terms.ts';
import { orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';

export interface Caller {
  orgId: string;
  apiKey: string;
  score: (body: unknown, headers?: Record<string, string>) => Promise<Response>;
}

export interface Harness {
  api: InProcessNode;
  callers: Record<Tier, Caller>;
  stop: () => Promise<void>;
}

/**
 * One API node built in the test process (real Redis, Kafka and ClickHouse) and one organisation per tier. The rate is set far above what a test
 * sends, so these tests exercise the contract, not the rate limiter. The ledger gets a second,
 * not its 25 ms production budget: the tests expect full evidence, and a loaded machine can
 * pause a node longer than 25 ms (capabilities-ledger.test.ts owns the timeout).
 */
export async function startHarness(): Promise<Harness> {
  // A version-state key of its own: an admin promotion elsewhere must not change the default here.
  const api = await startNode({
    LEDGER_TIMEOUT_MS: '1000',
    SCORE_VERSION_KEY: `frs:versions:contract:${process.pid}`,
  });
  const callers = {} as Record<Tier, Caller>;
  for (const tier of ['verify', 'assess', 'bureau'] as const) {
    const { orgId, apiKey } = await orgWithKey(tier, { rateRps: 100_000, credits: 1_000_000 });
    callers[tier] = { orgId, apiKey, score: (body, headers) => scoreCall(api.url, apiKey, body, headers) };
  }
  return { api, callers, stop: api.stop };
}

interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema: { maxLength?: number } }[];
  responses: Record<
    string,
    { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
  >;
}

/** The parts of the served document the tests read. */
export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  security: Record<string, unknown[]>[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, object>;
    headers: Record<string, unknown>;
    responses: Record<string, { headers?: Record<string, unknown>; content: Record<string, unknown> }>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
  };
  [extension: `x-${string}`]: unknown;
}

/** Fetches and parses the served OpenAPI document. */
export async function servedDocument(url: string): Promise<OpenApiDoc> {
  const res = await fetch(`${url}/v1/openapi.yaml`);
  if (!res.ok) throw new Error(`openapi.yaml: ${res.status}`);
  return parse(await res.text());
}

function rewriteRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(rewriteRefs);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        k === '$ref' && typeof x === 'string'
          ? x.replace('#/components/schemas/', '#/$defs/')
          : rewriteRefs(x),
      ]),
    );
  }
  return v;
}

/**
 * A validator built from the served document's own component schema (not from the zod source),
 * so a response that passes it conforms to what a caller reading only the document expects.
 */
export function documentValidator(doc: OpenApiDoc, schemaName: string): z.ZodType {
  const defs = rewriteRefs(doc.components.schemas) as Record<string, object>;
  const target = defs[schemaName];
  if (!target) throw new Error(`the served document has no schema ${schemaName}`);
  return z.fromJSONSchema({ $defs: defs, ...target } as never);
}
