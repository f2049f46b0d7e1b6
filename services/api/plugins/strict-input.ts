/**
 * Requests say what they mean (PRODUCT.md "API conventions", issue 40): a JSON body field or a
 * query parameter the route does not know is a 400 naming it, with a hint where a near name
 * exists (`{"location": ["location: unknown field; did you mean state?"], "detail": "…"}`), as
 * Stripe does: a typo must not silently widen an alert.
 *
 * One mechanism for every route: app.ts sets `strictValidatorCompiler`, which checks the raw
 * body and query string against the route's zod schema before zod parses them (zod objects would
 * drop unknown keys without a word). A route gets it by declaring its schema; which objects are
 * closed is said by the schema itself:
 *   - `z.object({...})`: closed, an unknown key is a 400 (the default);
 *   - `z.looseObject({...})`: open on purpose (links in e-mails, which mail clients and
 *     trackers add parameters to);
 *   - `z.record(...)`: free-form by design (analytics `properties`).
 * Unions are not looked into (which branch a value meant is zod's to say). The OpenAPI document
 * says the same (openapi-error-answers.ts: closed bodies carry `additionalProperties: false`,
 * closed query strings a sentence in the operation's description).
 */
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { ValidationError } from '../../shared/errors.js';
import { validationFields } from './error-handler.js';

type Def = { type: string; shape?: Record<string, ZodType>; catchall?: ZodType; element?: ZodType; innerType?: ZodType; in?: ZodType; out?: ZodType };
const defOf = (schema: ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/** The schema a raw value is checked against: wrappers and pipes looked through (a preprocess is read at its result). */
function unwrap(schema: ZodType): ZodType {
  let current = schema;
  for (let i = 0; i < 32; i++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in && def.out) current = defOf(def.in).type === 'transform' ? def.out : def.in;
    else break;
  }
  return current;
}

/** A `z.object` that says nothing about other keys: an unknown key is refused. */
export function isClosedObject(schema: ZodType): boolean {
  const def = defOf(unwrap(schema));
  return def.type === 'object' && def.catchall === undefined;
}

export type UnknownField = { path: Array<string | number>; known: string[] };

/** Every key of `input` that its (closed) object in `schema` does not know, depth first. */
export function unknownFields(schema: ZodType, input: unknown, path: Array<string | number> = []): UnknownField[] {
  const def = defOf(unwrap(schema));
  if (def.type === 'array' && def.element && Array.isArray(input)) {
    return input.flatMap((item, i) => unknownFields(def.element!, item, [...path, i]));
  }
  if (def.type !== 'object' || !def.shape || input === null || typeof input !== 'object' || Array.isArray(input)) return [];
  const shape = def.shape;
  const found: UnknownField[] = [];
  for (const key of Object.keys(input)) {
    if (Object.hasOwn(shape, key)) found.push(...unknownFields(shape[key]!, (input as Record<string, unknown>)[key], [...path, key]));
    else if (def.catchall === undefined) found.push({ path: [...path, key], known: Object.keys(shape) });
  }
  return found;
}

/**
 * Names clients use for what a route calls otherwise (each group: names for one thing). A new
 * route whose fields have a common other name adds a group here.
 */
const SYNONYMS: readonly string[][] = [
  ['state', 'location', 'region', 'province'],
  ['near', 'near_zip', 'zip', 'zipcode', 'zip_code', 'postal_code', 'postcode'],
  ['search', 'q', 'query', 'keywords', 'keyword', 'text'],
  ['sort_by', 'sort', 'order', 'order_by', 'ordering'],
  ['page_size', 'limit', 'per_page', 'size'],
  ['category', 'category_id', 'equipment_type', 'equipment', 'categories'],
  ['radius_miles', 'radius', 'distance', 'within', 'miles'],
  ['delivery_method', 'channel', 'delivery'],
  ['is_active', 'active', 'enabled'],
  ['min_deal_score', 'deal_score', 'min_score', 'score'],
  ['password', 'password1', 'pass', 'pwd'],
  ['password2', 'confirm_password', 'password_confirm', 'password_confirmation', 're_password'],
  ['new_password1', 'new_password'],
  ['new_password2', 'confirm_new_password', 'new_password_confirm', 're_new_password'],
  ['old_password', 'current_password', 'password'],
  ['refresh', 'refresh_token'],
  ['id_token', 'credential', 'google_token'],
  ['first_name', 'firstname', 'given_name'],
  ['last_name', 'lastname', 'surname', 'family_name'],
  ['phone', 'phone_number', 'mobile', 'telephone'],
  ['terms_accepted', 'terms', 'accept_terms', 'tos'],
  ['listing_id', 'auction_id', 'listing', 'auction', 'id'],
  ['remind_before_minutes', 'remind_before', 'reminder', 'remind_minutes'],
  ['worth_the_trip', 'worth_trip'],
  ['max_delivered', 'max_delivered_price', 'delivered_max'],
];

/** Lower case, separators and camelCase humps dropped: `sortBy`, `sort-by` and `SORT_BY` are one name. */
const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .sort()
    .join(' ');

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known names an unknown one most likely meant (none when nothing is near): same name written otherwise, a synonym, a typo. */
export function nearNames(name: string, known: readonly string[]): string[] {
  const s = squash(name);
  if (!s) return [];
  const same = known.filter((k) => squash(k) === s || words(k) === words(name));
  if (same.length) return same;
  const synonyms = known.filter((k) => SYNONYMS.some((group) => group.some((g) => squash(g) === s) && group.includes(k)));
  if (synonyms.length) return synonyms.slice(0, 2);
  const allowed = s.length <= 2 ? 0 : s.length <= 4 ? 1 : 2;
  let best = Infinity;
  let nearest: string[] = [];
  for (const k of known) {
    const d = editDistance(s, squash(k));
    if (d > allowed || d > best) continue;
    if (d < best) nearest = [];
    best = d;
    nearest.push(k);
  }
  if (nearest.length) return nearest.slice(0, 2);
  // A name cut short or run on: `equipment` for equipment_type.
  if (s.length >= 4) return known.filter((k) => squash(k).startsWith(s) || s.startsWith(squash(k))).slice(0, 2);
  return [];
}

/** `location: unknown field; did you mean state?` (a query string's: `unknown parameter`). */
export function unknownFieldMessage(field: UnknownField, part: 'body' | 'querystring'): string {
  const name = field.path.join('.');
  const hint = nearNames(String(field.path[field.path.length - 1]), field.known);
  const what = part === 'querystring' ? 'unknown parameter' : 'unknown field';
  return hint.length ? `${name}: ${what}; did you mean ${hint.join(' or ')}?` : `${name}: ${what}.`;
}

/**
 * The zod validator of fastify-type-provider-zod, with unknown fields of the body and query
 * string refused first: they come first in the 400 (the likeliest cause of the rest, e.g. a
 * misspelt required field), followed by whatever else zod finds.
 */
export const strictValidatorCompiler: FastifySchemaCompiler<ZodType> = (route) => {
  const validate = validatorCompiler(route);
  const part = route.httpPart;
  if (part !== 'body' && part !== 'querystring') return validate;
  return (data) => {
    const unknown = unknownFields(route.schema, data);
    if (unknown.length === 0) return validate(data);
    const fields: Record<string, string[]> = {};
    for (const field of unknown) (fields[String(field.path[0])] ??= []).push(unknownFieldMessage(field, part));
    const rest = validate(data) as { error?: Array<{ instancePath: string; message?: string }> };
    if (Array.isArray(rest.error)) {
      for (const [field, messages] of Object.entries(validationFields(rest.error, part))) (fields[field] ??= []).push(...messages);
    }
    return { error: new ValidationError(fields) };
  };
};
