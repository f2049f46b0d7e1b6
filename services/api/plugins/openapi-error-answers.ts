/**
 * The OpenAPI document names each route's error answers (400, 401, 403, 404, 429), read from
 * what the route declares rather than written out on every route:
 *   400 — it validates input (a body, query or path parameters) or takes a JSON body;
 *   401 — it needs a signed-in user (`security`);
 *   403 — the route declares it (plan limits, a bad webhook signature);
 *   404 — a path parameter names a resource;
 *   429 — it has a rate limit (`config.rateLimit`).
 * A route's own declaration wins. This touches the document only: responses are still
 * serialized by the route's own schemas.
 *
 * It also says what strict-input.ts enforces: a closed body object (a `z.object`) carries
 * `additionalProperties: false` (zod leaves it out of input schemas), and an operation whose
 * query string is closed says in its description that an unknown parameter is a 400.
 */
import type { RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { isClosedObject } from './strict-input.js';

type JsonSchema = Record<string, unknown>;
type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

const detailOnly = { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] };

/** The contract's error shapes (PRODUCT.md "API conventions"). */
export const ERROR_ANSWERS: Record<'400' | '401' | '403' | '404' | '429', JsonSchema> = {
  '400': {
    description: 'Invalid input, or a field or query parameter the route does not know (named, with a hint where a near name exists): `{"<field>": ["…"], "detail": "…"}` (malformed JSON: `non_field_errors`)',
    type: 'object',
    properties: { detail: { type: 'string' } },
    required: ['detail'],
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
  '401': { description: 'No access token, or one not valid (refresh it and retry once)', ...detailOnly },
  '403': { description: 'Not allowed, or over a plan limit', ...detailOnly },
  '404': { description: 'Not found: `{"detail": "Not found."}`', ...detailOnly },
  '429': { description: 'Too many requests: wait the `Retry-After` seconds', ...detailOnly },
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Which error answers a route can give, from its options. */
export function errorAnswersOf(route: Pick<RouteOptions, 'method' | 'config' | 'schema'>): Array<keyof typeof ERROR_ANSWERS> {
  const schema = (route.schema ?? {}) as { body?: unknown; querystring?: unknown; params?: unknown; security?: unknown[] };
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
  const codes: Array<keyof typeof ERROR_ANSWERS> = [];
  if (schema.body || schema.querystring || schema.params || methods.some((m) => BODY_METHODS.has(m))) codes.push('400');
  if (schema.security && schema.security.length > 0) codes.push('401');
  if (schema.params) codes.push('404');
  if ((route.config as { rateLimit?: unknown } | undefined)?.rateLimit) codes.push('429');
  return codes;
}

export const UNKNOWN_PARAMETERS_NOTE = 'A query parameter this route does not know is a 400 naming it (with a hint where a near name exists).';

/**
 * A body's JSON Schema with `additionalProperties: false` on each object that says nothing about
 * other keys, as zod's `z.object` (a `z.looseObject` has `{}` there, a `z.record` its values'
 * schema). Unions are left open, as the check leaves them; a nullable object is looked into.
 */
export function closeBodyObjects(json: unknown): void {
  if (!json || typeof json !== 'object') return;
  const node = json as JsonSchema & { properties?: Record<string, unknown>; items?: unknown; anyOf?: JsonSchema[] };
  if (node.type === 'object' && node.properties && !('additionalProperties' in node)) node.additionalProperties = false;
  for (const child of Object.values(node.properties ?? {})) closeBodyObjects(child);
  closeBodyObjects(node.items);
  const branches = (node.anyOf ?? []).filter((b) => b.type !== 'null');
  if (branches.length === 1) closeBodyObjects(branches[0]);
}

/** @fastify/swagger's `transform`: zod schemas to JSON Schema (as before), then the error answers added. */
export function transformWithErrorAnswers(input: TransformInput): ReturnType<typeof jsonSchemaTransform> {
  const out = jsonSchemaTransform(input);
  const schema = (out.schema ?? {}) as JsonSchema & { hide?: boolean; response?: Record<string, JsonSchema>; body?: unknown; description?: string };
  if (schema.hide) return out;
  closeBodyObjects(schema.body);
  const querystring = (input.schema as { querystring?: ZodType } | undefined)?.querystring;
  if (querystring && isClosedObject(querystring)) schema.description = schema.description ? `${schema.description}\n\n${UNKNOWN_PARAMETERS_NOTE}` : UNKNOWN_PARAMETERS_NOTE;
  const response: Record<string, JsonSchema> = { ...(schema.response ?? {}) };
  for (const code of errorAnswersOf(input.route as RouteOptions)) response[code] ??= ERROR_ANSWERS[code];
  // Declared error answers keep their schema and gain the contract's description.
  for (const code of Object.keys(ERROR_ANSWERS) as Array<keyof typeof ERROR_ANSWERS>) {
    if (response[code] && !response[code]!.description) response[code] = { ...response[code], description: ERROR_ANSWERS[code].description };
  }
  return { ...out, schema: { ...schema, response } as typeof out.schema };
}
