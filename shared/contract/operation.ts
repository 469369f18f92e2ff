/**
 * One definition per operation of the API: method, path, auth, request and response schemas,
 * error answers, examples and words. The OpenAPI document's `paths` and component schemas are
 * derived from the definitions here; services/api/http/route.ts derives the Express route and
 * its request validation from the same object, so the two cannot drift apart.
 *
 * The JSON Schemas are zod 4's own (`z.toJSONSchema`, dialect 2020-12 as OpenAPI 3.1 uses), from
 * the zod schemas that validate requests: request bodies as accepted (`io: 'input'`), responses
 * as produced (`io: 'output'`).
 */
import { z } from 'zod';
import { ErrorBody } from './errors.ts';
import {
  errorStatus,
  headerRefs,
  responseRef,
  schemaRef,
  type ErrorResponseName,
  type HeaderName,
} from './openapi-responses.ts';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN } from './request.ts';

export type JsonSchema = Record<string, unknown>;

/** An OpenAPI Example Object, typed by what it exemplifies. */
export interface Example<T> {
  summary?: string;
  value: T;
}

/** A body: a zod schema registered with an id (`.meta({ id })`), which becomes a component schema. */
export interface BodyDefinition<S extends z.ZodType = z.ZodType> {
  schema: S;
  examples?: Record<string, Example<z.input<S>>>;
}

/** An answer of the operation's own (the shared error answers are named in `errors`). */
export interface ResponseDefinition {
  description: string;
  /** Besides X-Request-Id, which every answer carries. */
  headers?: readonly HeaderName[];
  /** A JSON body (see `json`), or another media type with a JSON Schema written out. */
  body?: { schema: z.ZodType; examples?: Record<string, Example<unknown>> } | RawBody;
}

/** A body that is not JSON (the YAML of GET /v1/openapi.yaml), its schema written by hand. */
export interface RawBody {
  mediaType: string;
  jsonSchema: JsonSchema;
}

export interface ParamDefinition {
  /** A zod string schema of the path segment; not registered: it is written inline. */
  schema: z.ZodType<string>;
  description?: string;
  example?: string;
}

export type Tag = 'scoring' | 'outcomes' | 'lists' | 'operations';

/** A body that is not JSON (a list's CSV), read as UTF-8 text and handed to the handler as a string. */
export interface TextBodyDefinition {
  mediaType: 'text/csv';
  description: string;
  example?: string;
}

export interface OperationDefinition<B extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'put';
  /** The OpenAPI path template; `{name}` is a path parameter, declared in `params`. */
  path: `/${string}`;
  operationId: string;
  tags: Tag[];
  summary: string;
  description?: string;
  /** `public`: no key (`security: []`); `bearer`: the document's API-key security applies. */
  auth: 'bearer' | 'public';
  /** One entry per `{name}` of `path`. A value its schema refuses is the operation's 404. */
  params?: Record<string, ParamDefinition>;
  /**
   * The query parameters: a strict zod object of optional string fields (written inline, one
   * parameter each). A value its schema refuses, an unknown or a repeated name: 422.
   */
  query?: z.ZodObject;
  /** What the Idempotency-Key header means here; absent: the operation takes none. */
  idempotencyKey?: string;
  /** The JSON request body, validated against `schema` (422 listing every violation). */
  body?: BodyDefinition<B>;
  /** A text request body instead of JSON; the handler checks its content. */
  textBody?: TextBodyDefinition;
  /** The operation's own answers by status. */
  responses: Record<number, ResponseDefinition>;
  /** The shared error answers it gives (openapi-responses.ts), each under its own status. */
  errors: readonly ErrorResponseName[];
}

/** A JSON response body whose examples are checked against the schema's output type. */
export const json = <S extends z.ZodType>(
  schema: S,
  examples?: Record<string, Example<z.output<S>>>,
): ResponseDefinition['body'] => ({ schema, ...(examples ? { examples } : {}) });

/** `{score_id}` to `score_id`: the path parameters a path template names. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** A zod schema written inline (a parameter's), without the `$schema` of a standalone document. */
function inlineSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });
  return rest;
}

/** One query parameter per field of the operation's query object, its description lifted out. */
function queryParameters(op: OperationDefinition): JsonSchema[] {
  return Object.entries(op.query?.shape ?? {}).map(([name, field]) => {
    const { description, examples, ...schema } = inlineSchema(field as z.ZodType);
    return {
      name,
      in: 'query',
      required: !(field as z.ZodType).safeParse(undefined).success,
      ...(typeof description === 'string' ? { description } : {}),
      schema,
      ...(Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {}),
    };
  });
}

function parameters(op: OperationDefinition): JsonSchema[] {
  const out: JsonSchema[] = Object.entries(op.params ?? {}).map(([name, p]) => ({
    name,
    in: 'path',
    required: true,
    ...(p.description ? { description: p.description } : {}),
    schema: inlineSchema(p.schema),
    ...(p.example !== undefined ? { example: p.example } : {}),
  }));
  out.push(...queryParameters(op));
  if (op.idempotencyKey !== undefined) {
    // Checked by validation.ts's idempotencyKeyErrors (a repeated header is refused too), not zod.
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: op.idempotencyKey,
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: IDEMPOTENCY_KEY_MAX,
        pattern: IDEMPOTENCY_KEY_PATTERN.source,
      },
    });
  }
  return out;
}

function content(body: NonNullable<ResponseDefinition['body']>): JsonSchema {
  if ('mediaType' in body) return { [body.mediaType]: { schema: body.jsonSchema } };
  return {
    'application/json': {
      schema: schemaRef(body.schema),
      ...(body.examples ? { examples: body.examples } : {}),
    },
  };
}

/** The operation's answers by status: its own, then the shared error answers by reference. */
function responses(op: OperationDefinition): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    out[status] = {
      description: r.description,
      headers: headerRefs('X-Request-Id', ...(r.headers ?? [])),
      ...(r.body ? { content: content(r.body) } : {}),
    };
  }
  for (const name of op.errors) {
    const status = String(errorStatus(name));
    if (out[status]) throw new Error(`${op.operationId}: two answers under ${status}`);
    out[status] = responseRef(name);
  }
  return out;
}

/** The request body of the operation, JSON or text; none for an operation without one. */
function requestBody(op: OperationDefinition): JsonSchema {
  if (op.textBody) {
    const { mediaType, description, example } = op.textBody;
    return {
      requestBody: {
        required: true,
        description,
        content: { [mediaType]: { schema: { type: 'string' }, ...(example ? { example } : {}) } },
      },
    };
  }
  if (!op.body) return {};
  return {
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: schemaRef(op.body.schema),
          ...(op.body.examples ? { examples: op.body.examples } : {}),
        },
      },
    },
  };
}

/** The OpenAPI Operation Object of a definition. */
export function operationObject(op: OperationDefinition): JsonSchema {
  const params = parameters(op);
  return {
    operationId: op.operationId,
    tags: op.tags,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.auth === 'public' ? { security: [] } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...requestBody(op),
    responses: responses(op),
  };
}

/**
 * The `paths` of the document, in the order the operations are given. Two definitions of one
 * method and path are a mistake, not an override.
 */
export function pathsOf(
  operations: readonly OperationDefinition[],
): Record<string, Record<string, JsonSchema>> {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is defined twice`);
    item[op.method] = operationObject(op);
  }
  return paths;
}

/** Every `$ref` to a component schema inside a JSON Schema, in document order. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v.slice(v.lastIndexOf('/') + 1));
      else refsIn(v, out);
    }
  }
  return out;
}

const idOf = (schema: z.ZodType) => schemaRef(schema).$ref.slice('#/components/schemas/'.length);

/**
 * The component schemas the operations use, and every schema those refer to: request bodies as
 * accepted first, then response bodies as produced, then the error body of the shared answers,
 * each depth first in the order met. A schema met as both with two different forms would make
 * one `$ref` mean two things, so that throws.
 */
export function componentSchemas(operations: readonly OperationDefinition[]): Record<string, JsonSchema> {
  const uri = (id: string) => `#/components/schemas/${id}`;
  const registry = (io: 'input' | 'output') =>
    z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io, uri }).schemas as Record<
      string,
      JsonSchema
    >;
  const forms = { input: registry('input'), output: registry('output') };
  const out: Record<string, JsonSchema> = {};
  const visit = (id: string, io: 'input' | 'output') => {
    const found = forms[io][id];
    if (!found) throw new Error(`schema ${id} is not registered`);
    const { $schema: _s, $id: _i, ...schema } = found;
    if (out[id]) {
      if (JSON.stringify(out[id]) !== JSON.stringify(schema))
        throw new Error(`${id} differs as input and output`);
      return;
    }
    out[id] = schema;
    for (const ref of refsIn(schema)) visit(ref, io);
  };
  for (const op of operations) if (op.body) visit(idOf(op.body.schema), 'input');
  for (const op of operations) {
    for (const r of Object.values(op.responses))
      if (r.body && 'schema' in r.body) visit(idOf(r.body.schema), 'output');
  }
  visit(idOf(ErrorBody), 'output');
  return out;
}
