/**
 * The web app's usage analytics (spec §2, §3, §5, §9), sent to `POST /api/events/`.
 *
 * Every event is sanitised by §5's rules before it is queued (name ≤ 100 characters, strings cut
 * to 1000, arrays to 100 items, non-finite numbers → 0, null → ''), carries the device id kept
 * in local storage (`analytics_device_id`, prefixed `dr_`, generated when missing) and, while
 * signed in, the §3 user properties (cleared at logout). Events are batched: flushed after a
 * short pause, when the batch is full, and with `keepalive` when the page is hidden. Analytics
 * never breaks the app: every failure is swallowed.
 */
import { buildUrl, requestResponse } from './api-client.js';

export const DEVICE_ID_KEY = 'analytics_device_id';
export const DEVICE_ID_PREFIX = 'dr_';
export const EVENT_NAME_MAX = 100;
export const STRING_MAX = 1000;
export const ARRAY_MAX = 100;
const KEYS_MAX = 50;
const DEPTH_MAX = 3;
/** The server takes at most 20 events per request. */
export const BATCH_MAX = 20;
export const FLUSH_DELAY_MS = 3000;
const QUEUE_MAX = 200;

export type EventType = 'page' | 'track' | 'error';
export type QueuedEvent = { name: string; type: EventType; properties: Record<string, unknown>; timestamp: string };
export type UserProperties = { email: string; first_name: string; last_name: string; user_type: string; date_joined: string; original_user_id: number | string };

// ---- §5 sanitising (pure) -----------------------------------------------------------------

export function sanitizeValue(value: unknown, depth = 0): unknown {
  if (value === null) return '';
  if (typeof value === 'string') return value.length > STRING_MAX ? value.slice(0, STRING_MAX) : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'boolean') return value;
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.toISOString() : '';
  if (depth >= DEPTH_MAX) return undefined;
  if (Array.isArray(value)) return value.slice(0, ARRAY_MAX).map((v) => sanitizeValue(v, depth + 1)).filter((v) => v !== undefined);
  if (typeof value === 'object') return sanitizeProperties(value as Record<string, unknown>, depth + 1);
  return String(value).slice(0, STRING_MAX);
}

export function sanitizeProperties(props: Record<string, unknown> | null | undefined, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!props || typeof props !== 'object') return out;
  for (const [key, value] of Object.entries(props).slice(0, KEYS_MAX)) {
    const clean = sanitizeValue(value, depth);
    if (clean !== undefined) out[key.slice(0, 100)] = clean;
  }
  return out;
}

/** A name as a string of at most 100 characters; empty names become 'Unnamed Event'. */
export function sanitizeName(name: unknown): string {
  const text = typeof name === 'string' ? name.trim() : String(name ?? '');
  return (text || 'Unnamed Event').slice(0, EVENT_NAME_MAX);
}

/** Spec §2: 'Home' for /, otherwise the path without its leading slash. */
export function pageViewName(pathname: string): string {
  return pathname === '/' || pathname === '' ? 'Home' : pathname.replace(/^\//, '');
}

// ---- device id (§9) ------------------------------------------------------------------------

function randomId(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

export function isValidDeviceId(id: string | null | undefined): id is string {
  return typeof id === 'string' && id.startsWith(DEVICE_ID_PREFIX) && id.length >= 5 && id.length <= 128 && /^[A-Za-z0-9_-]+$/.test(id);
}

/** The stored device id, generated and stored when missing or malformed. */
export function deviceId(): string {
  let id: string | null = null;
  try {
    id = window.localStorage.getItem(DEVICE_ID_KEY);
  } catch {
    // Storage may be blocked; a per-page id is still useful.
  }
  if (isValidDeviceId(id)) return id;
  id = `${DEVICE_ID_PREFIX}${randomId()}`;
  try {
    window.localStorage.setItem(DEVICE_ID_KEY, id);
  } catch {
    /* ignored */
  }
  return id;
}

// ---- the client ----------------------------------------------------------------------------

type Settings = { enabled: boolean; flushDelayMs: number };
// Component tests run the whole app; they turn analytics on only where they test it.
const settings: Settings = { enabled: (import.meta as { env?: { MODE?: string } }).env?.MODE !== 'test', flushDelayMs: FLUSH_DELAY_MS };

let queue: QueuedEvent[] = [];
let userProperties: UserProperties | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

export function configureAnalytics(next: Partial<Settings>): void {
  Object.assign(settings, next);
}

/** Signed-in user's §3 properties, sent with every event until `clearUser`. */
export function identify(props: UserProperties): void {
  userProperties = sanitizeProperties(props) as UserProperties;
}

export function clearUser(): void {
  userProperties = null;
}

export function currentUserProperties(): UserProperties | null {
  return userProperties;
}

function enqueue(type: EventType, name: string, properties?: Record<string, unknown>): void {
  if (!settings.enabled) return;
  queue.push({ name: sanitizeName(name), type, properties: sanitizeProperties(properties), timestamp: new Date().toISOString() });
  // A server that never answers must not grow the queue without bound.
  if (queue.length > QUEUE_MAX) queue = queue.slice(-QUEUE_MAX);
  if (queue.length >= BATCH_MAX) void flush();
  else if (!timer) timer = setTimeout(() => void flush(), settings.flushDelayMs);
}

export function track(name: string, properties?: Record<string, unknown>): void {
  enqueue('track', name, properties);
}

export function page(pathname: string, search: string, hash: string): void {
  enqueue('page', pageViewName(pathname), { path: pathname, search, hash });
}

export function trackError(name: string, properties?: Record<string, unknown>): void {
  enqueue('error', name, properties);
}

/** Sends what is queued, BATCH_MAX at a time. */
export async function flush(opts: { keepalive?: boolean } = {}): Promise<void> {
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  while (queue.length > 0) {
    const batch = queue.splice(0, BATCH_MAX);
    const body = { device_id: deviceId(), user_properties: userProperties, events: batch };
    try {
      if (opts.keepalive && typeof fetch === 'function') {
        await fetch(buildUrl('/api/events/'), { method: 'POST', keepalive: true, headers: { 'Content-Type': 'application/json', ...authHeader() }, body: JSON.stringify(body) });
      } else {
        await requestResponse('/api/events/', { method: 'POST', body, refreshOn401: false, redirectOnAuthFailure: false });
      }
    } catch {
      // Analytics is best effort: a lost batch is not worth an error for the user.
    }
  }
}

function authHeader(): Record<string, string> {
  try {
    const token = window.localStorage.getItem('access_token');
    return token ? { Authorization: `Bearer ${token}` } : {};
  } catch {
    return {};
  }
}

/** Test helper: forget queued events and the user. */
export function resetAnalytics(): void {
  queue = [];
  userProperties = null;
  if (timer) clearTimeout(timer);
  timer = null;
}
