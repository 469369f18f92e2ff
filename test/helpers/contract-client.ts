import type { z } from 'zod';
import { scoringClient, type ScoringClient } from '../../client/index.ts';
import { documentValidator, servedDocument } from '../contract/harness.ts';

type Header = { schema?: { type?: string; enum?: unknown[]; minimum?: number } };
type Documented = {
  $ref?: string;
  headers?: Record<string, Header | { $ref: string }>;
  content?: Record<string, { schema?: { $ref?: string } }>;
};

const lastSegment = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * Typed clients (client/index.ts) whose every answer is checked against the document the node
 * serves: the operation and its status must be documented, a JSON body must match the
 * documented schema of that status, and each documented header that is present must match its
 * schema. A drift between document and behaviour makes the call throw, so the test fails.
 * Returns a factory: one client per API key, all sharing the document read once.
 */
export async function contractClients(baseUrl: string): Promise<(apiKey?: string) => ScoringClient> {
  const doc = await servedDocument(baseUrl);
  const validators = new Map<string, z.ZodType>();
  const validator = (name: string) => {
    let v = validators.get(name);
    if (!v) validators.set(name, (v = documentValidator(doc, name)));
    return v;
  };

  const check = async (request: Request, response: Response, schemaPath: string) => {
    const what = `${request.method} ${schemaPath} -> ${response.status}`;
    const op = doc.paths[schemaPath]?.[request.method.toLowerCase()];
    if (!op) throw new Error(`${request.method} ${schemaPath} is not in the served document`);
    let documented = op.responses[String(response.status)] as Documented | undefined;
    if (!documented) throw new Error(`${what}: the document does not list this status`);
    if (documented.$ref) documented = doc.components.responses[lastSegment(documented.$ref)] as Documented;

    if (!response.headers.get('x-request-id')) throw new Error(`${what}: no X-Request-Id`);
    for (const [name, h] of Object.entries(documented.headers ?? {})) {
      const header = ('$ref' in h ? doc.components.headers[lastSegment(h.$ref)] : h) as Header;
      const value = response.headers.get(name);
      if (value === null || !header.schema) continue;
      const { type, enum: allowed, minimum } = header.schema;
      const bad =
        (allowed && !allowed.includes(value)) ||
        (type === 'integer' &&
          (!/^-?\d+$/.test(value) || (minimum !== undefined && Number(value) < minimum)));
      if (bad) throw new Error(`${what}: header ${name}: ${value} breaks ${JSON.stringify(header.schema)}`);
    }

    const ref = documented.content?.['application/json']?.schema?.$ref;
    if (ref) {
      const body: unknown = await response.clone().json();
      const result = validator(lastSegment(ref)).safeParse(body);
      if (!result.success) {
        throw new Error(`${what}: body breaks ${ref}: ${JSON.stringify(result.error.issues).slice(0, 2000)}`);
      }
    }
  };

  return (apiKey) => {
    const client = scoringClient({ baseUrl, ...(apiKey ? { apiKey } : {}) });
    client.use({
      async onResponse({ request, response, schemaPath }) {
        await check(request, response, schemaPath);
        return undefined;
      },
    });
    return client;
  };
}
