/**
 * The spec's §5 analytics rules as one pure function, used by the API on whatever a client sends
 * (the web app applies the same rules before sending): strings cut to 1000 characters, arrays to
 * 100 items, non-finite numbers become 0, null becomes ''. Beyond the spec, so one event cannot
 * grow without bound: at most 50 properties per object and 3 levels of nesting (deeper values are
 * dropped), and keys cut to 100 characters.
 */

export const EVENT_NAME_MAX = 100;
export const STRING_MAX = 1000;
export const ARRAY_MAX = 100;
export const KEYS_MAX = 50;
export const KEY_LENGTH_MAX = 100;
export const DEPTH_MAX = 3;

export type SanitizedValue = string | number | boolean | SanitizedValue[] | { [key: string]: SanitizedValue };

/** One value; undefined when it has no JSON meaning (functions, too deep) and is dropped. */
export function sanitizeValue(value: unknown, depth = 0): SanitizedValue | undefined {
  if (value === null) return '';
  if (typeof value === 'string') return value.length > STRING_MAX ? value.slice(0, STRING_MAX) : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number.isFinite(Number(value)) ? Number(value) : 0;
  if (depth >= DEPTH_MAX) return undefined;
  if (Array.isArray(value)) {
    const out: SanitizedValue[] = [];
    for (const item of value.slice(0, ARRAY_MAX)) {
      const clean = sanitizeValue(item, depth + 1);
      if (clean !== undefined) out.push(clean);
    }
    return out;
  }
  if (typeof value === 'object') return sanitizeProperties(value as Record<string, unknown>, depth + 1);
  return undefined;
}

/** An object of properties: keys bounded in number and length, each value sanitised. */
export function sanitizeProperties(input: Record<string, unknown> | null | undefined, depth = 0): Record<string, SanitizedValue> {
  const out: Record<string, SanitizedValue> = {};
  if (!input || typeof input !== 'object' || Array.isArray(input)) return out;
  let kept = 0;
  for (const [rawKey, value] of Object.entries(input)) {
    if (kept >= KEYS_MAX) break;
    const key = rawKey.slice(0, KEY_LENGTH_MAX);
    // Never let a client's key reach an object prototype.
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    const clean = sanitizeValue(value, depth);
    if (clean === undefined) continue;
    out[key] = clean;
    kept += 1;
  }
  return out;
}

/** The client's timestamp when it is within a day of `now`; otherwise `now`. */
export function boundedOccurredAt(clientTime: string | number | undefined | null, now: Date): Date {
  if (clientTime === undefined || clientTime === null || clientTime === '') return now;
  const t = typeof clientTime === 'number' ? clientTime : Date.parse(clientTime);
  if (!Number.isFinite(t) || Math.abs(t - now.getTime()) > 24 * 3600 * 1000) return now;
  return new Date(t);
}
