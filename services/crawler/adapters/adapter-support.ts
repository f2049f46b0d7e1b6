/**
 * Small tools the real-site adapters share: a base URL that configuration may override (tests
 * point every adapter at recorded pages on 127.0.0.1), JSON that fails as a ParseError, loose
 * field readers for third-party payloads, and local wall-clock times converted to UTC.
 */
import type { Config } from '../../shared/config.js';
import { ParseError } from '../adapter.js';

/** The source's base URL: `SOURCE_BASE_URLS` override, else its public default. */
export function sourceBaseUrl(config: Config, name: string, fallback: string): string {
  return (config.SOURCE_BASE_URLS[name] ?? fallback).replace(/\/+$/, '');
}

/**
 * Hosts a source may be fetched from, redirects included: its base URL's host and, for the
 * public site, the same host with or without `www.` (sites redirect between the two).
 */
export function sourceHosts(config: Config, name: string, fallback: string): string[] {
  const host = new URL(sourceBaseUrl(config, name, fallback)).host;
  if (config.SOURCE_BASE_URLS[name]) return [host];
  return [host, host.startsWith('www.') ? host.slice(4) : `www.${host}`];
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a response body as JSON; anything else (HTML error page, cut body) is a ParseError. */
export function parseJsonBody(body: string, what: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new ParseError(`${what}: response is not JSON (${body.slice(0, 60).replace(/\s+/g, ' ')}…)`);
  }
}

/** A trimmed string, or null for null/undefined/empty/non-scalar values. */
export function str(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** A finite number from a number or numeric string, or null. */
export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && /^-?[0-9][0-9,]*(\.[0-9]+)?$/.test(value.trim())) {
    const n = Number(value.trim().replace(/,/g, ''));
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** Offset (ms) of `timeZone` from UTC at the instant `utcMs`. */
function zoneOffsetMs(utcMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - utcMs;
}

/** A wall-clock time in an IANA time zone (daylight saving included) → the UTC instant, or null if invalid. */
export function zonedTimeToUtc(
  parts: { year: number; month: number; day: number; hour: number; minute: number; second?: number },
  timeZone: string,
): Date | null {
  const { year, month, day, hour, minute, second = 0 } = parts;
  if (![year, month, day, hour, minute, second].every(Number.isInteger)) return null;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const guess = Date.UTC(year, month - 1, day, hour, minute, second);
  // Two passes settle the offset across a daylight-saving change.
  let utc = guess - zoneOffsetMs(guess, timeZone);
  utc = guess - zoneOffsetMs(utc, timeZone);
  return Number.isFinite(utc) ? new Date(utc) : null;
}

/** `YYYY-MM-DDTHH:MM[:SS]` with no offset, read as wall-clock time in `timeZone`. */
export function isoLocalToUtc(value: unknown, timeZone: string): Date | null {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(value.trim()) : null;
  if (!m) return null;
  return zonedTimeToUtc({ year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: m[6] ? +m[6] : 0 }, timeZone);
}

/** `MM/DD/YYYY HH:MM[:SS]` read as wall-clock time in `timeZone`. */
export function usDateTimeToUtc(value: unknown, timeZone: string): Date | null {
  const m = typeof value === 'string' ? /^(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim()) : null;
  if (!m) return null;
  return zonedTimeToUtc({ year: +m[3]!, month: +m[1]!, day: +m[2]!, hour: +m[4]!, minute: +m[5]!, second: m[6] ? +m[6] : 0 }, timeZone);
}

/** An ISO instant with an explicit offset or Z → Date, else null. */
export function isoInstant(value: unknown): Date | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value.trim())) return null;
  const d = new Date(value.trim());
  return Number.isFinite(d.getTime()) ? d : null;
}
