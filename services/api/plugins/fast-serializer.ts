/**
 * A response serializer for hot routes. fastify-type-provider-zod's serializer runs the whole zod
 * schema over every response (15 cards × 17 fields on a list page) and then JSON.stringify; here
 * the route's zod schema — still the contract's one source, and what /api/docs/ shows — is turned
 * into a JSON Schema once and compiled by fast-json-stringify (the serializer Fastify itself uses).
 *
 * fast-json-stringify writes what the schema says without checking the data (a null where a
 * string is expected comes out as ""), so wherever `verify` is on (every environment but
 * production: tests, development) each response is also parsed by the zod schema first and a
 * mismatch fails the request as the zod serializer would. Only 2xx schemas are compiled this way;
 * error responses keep the zod serializer.
 */
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/**
 * zod writes a nullable as `anyOf: [X, {type: "null"}]`; fast-json-stringify serializes anyOf by
 * validating each branch against the value at run time. Where X is a plain typed schema the same
 * meaning fits in `type: [X's type, "null"]`, which it writes directly.
 */
export function simplifyNullables(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(simplifyNullables);
  if (schema === null || typeof schema !== 'object') return schema;
  const node = Object.fromEntries(Object.entries(schema as JsonSchema).map(([k, v]) => [k, simplifyNullables(v)])) as JsonSchema;
  const anyOf = node.anyOf as JsonSchema[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullIndex = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    const other = anyOf[1 - nullIndex];
    if (nullIndex >= 0 && other && typeof other.type === 'string' && other.type !== 'object' && other.type !== 'array' && !('enum' in other)) {
      const { anyOf: _dropped, ...rest } = node;
      return { ...rest, ...other, type: [other.type, 'null'] };
    }
  }
  return node;
}

/** The JSON Schema fast-json-stringify compiles for a zod response schema. */
export function responseJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return simplifyNullables(json) as JsonSchema;
}

/** Typed to fit any route's options; the route's response schemas are zod (the app's type provider). */
export function fastResponseSerializer<RouteSchema = unknown>(opts: { verify: boolean }): FastifySerializerCompiler<RouteSchema> {
  return (route) => {
    if (!/^2\d\d$/.test(String(route.httpStatus))) return zodSerializerCompiler(route as never);
    const schema = route.schema as unknown as z.ZodType;
    const stringify = fastJson(responseJsonSchema(schema) as never);
    if (!opts.verify) return (data) => stringify(data);
    const checked = zodSerializerCompiler(route as never);
    return (data) => {
      checked(data); // throws the zod serializer's ResponseSerializationError on a mismatch
      return stringify(data);
    };
  };
}
