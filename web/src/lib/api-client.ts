/**
 * The one HTTP client of the web app (spec §7, §8). JSON in and out; the bearer access token
 * attached when present. On a 401 it refreshes the tokens — one refresh at a time however many
 * requests failed together, storing the rotated refresh token — and retries once; when that
 * fails the session is over: tokens cleared, 'Authentication failed', back to /login.
 */
import { tokenStorage } from './token-storage.js';

export const AUTH_FAILED_MESSAGE = 'Authentication failed';
export const TOKEN_REFRESH_PATH = '/api/auth/token/refresh/';

/** A failed request; `message` is the server's detail, else its error, else 'HTTP {status}'. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Field messages of a 400 in the contract's shape (`{"email": ["…"]}`), `detail` excluded. */
  get fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    if (this.body && typeof this.body === 'object') {
      for (const [key, value] of Object.entries(this.body as Record<string, unknown>)) {
        if (key === 'detail' || key === 'error') continue;
        if (Array.isArray(value) && typeof value[0] === 'string') out[key] = value[0];
        else if (typeof value === 'string') out[key] = value;
      }
    }
    return out;
  }
}

/** detail, else error, else 'HTTP {status}' (spec §8). */
export function errorMessageFromBody(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const { detail, error } = body as { detail?: unknown; error?: unknown };
    if (typeof detail === 'string' && detail.trim() !== '') return detail;
    if (typeof error === 'string' && error.trim() !== '') return error;
  }
  return `HTTP ${status}`;
}

export type RequestOptions = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | null | undefined>;
  /** Attach the bearer token (default true). The auction list is called without one. */
  auth?: boolean;
  /** Refresh and retry on a 401 (default: when a token was attached). */
  refreshOn401?: boolean;
  /** Send the user to /login when the session cannot be recovered (default true). */
  redirectOnAuthFailure?: boolean;
  signal?: AbortSignal;
};

type ClientSettings = {
  baseUrl: string;
  fetch: typeof fetch;
  /** Called once the session is lost: the app clears its user and navigates to /login. */
  onAuthFailure: () => void;
};

const settings: ClientSettings = {
  baseUrl: '',
  fetch: (...args) => globalThis.fetch(...args),
  onAuthFailure: () => {
    if (typeof window !== 'undefined') window.location.assign('/login');
  },
};

export function configureApiClient(next: Partial<ClientSettings>): void {
  Object.assign(settings, next);
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === null || value === undefined || value === '') continue;
    params.set(key, String(value));
  }
  const qs = params.toString();
  return `${settings.baseUrl}${path}${qs ? `?${qs}` : ''}`;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function send(path: string, opts: RequestOptions, token: string | null): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  return settings.fetch(buildUrl(path, opts.query), {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
  });
}

let refreshInFlight: Promise<boolean> | null = null;

/** One refresh at a time: concurrent 401s share the same call. Resolves true when new tokens are stored. */
export function refreshTokens(): Promise<boolean> {
  if (!refreshInFlight) {
    refreshInFlight = (async () => {
      const refresh = tokenStorage.getRefresh();
      if (!refresh) return false;
      try {
        const response = await send(TOKEN_REFRESH_PATH, { method: 'POST', body: { refresh } }, null);
        if (!response.ok) return false;
        const body = (await readBody(response)) as { access?: unknown; refresh?: unknown } | null;
        if (!body || typeof body.access !== 'string') return false;
        // Refresh tokens rotate: the one just used is dead, so keep the new one.
        tokenStorage.setTokens(body.access, typeof body.refresh === 'string' ? body.refresh : null);
        return true;
      } catch {
        return false;
      }
    })().finally(() => {
      refreshInFlight = null;
    });
  }
  return refreshInFlight;
}

function authFailed(opts: RequestOptions): never {
  tokenStorage.clear();
  if (opts.redirectOnAuthFailure !== false) settings.onAuthFailure();
  throw new ApiError(AUTH_FAILED_MESSAGE, 401);
}

/** The raw response after the auth dance (refresh and one retry on a 401). */
export async function requestResponse(path: string, opts: RequestOptions = {}): Promise<Response> {
  const useAuth = opts.auth !== false;
  const token = useAuth ? tokenStorage.getAccess() : null;
  const response = await send(path, opts, token);
  const mayRefresh = opts.refreshOn401 ?? token !== null;
  if (response.status !== 401 || !mayRefresh) return response;

  if (!(await refreshTokens())) authFailed(opts);
  const retried = await send(path, opts, useAuth ? tokenStorage.getAccess() : null);
  if (retried.status === 401) authFailed(opts);
  return retried;
}

/** A JSON request; throws ApiError with the spec's message on any non-2xx answer. */
export async function apiRequest<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const response = await requestResponse(path, opts);
  const body = await readBody(response);
  if (!response.ok) throw new ApiError(errorMessageFromBody(body, response.status), response.status, body);
  return body as T;
}
