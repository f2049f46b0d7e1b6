// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { AUTH_FAILED_MESSAGE, ApiError, apiRequest, configureApiClient, errorMessageFromBody } from './api-client.js';
import { retryDelay, shouldRetry } from './query-client.js';
import { tokenStorage } from './token-storage.js';

type Handler = (url: URL, init: RequestInit) => Promise<Response> | Response;

function json(status: number, body: unknown, statusText = ''): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), { status, statusText, headers: { 'Content-Type': 'application/json' } });
}

let calls: { path: string; auth: string | undefined; body: unknown }[] = [];
let authFailures = 0;

function useServer(handler: Handler) {
  calls = [];
  authFailures = 0;
  configureApiClient({
    baseUrl: 'http://127.0.0.1',
    fetch: async (input, init = {}) => {
      const url = new URL(String(input));
      const headers = (init.headers ?? {}) as Record<string, string>;
      calls.push({ path: url.pathname, auth: headers.Authorization, body: init.body ? JSON.parse(String(init.body)) : undefined });
      return handler(url, init);
    },
    onAuthFailure: () => {
      authFailures++;
    },
  });
}

beforeEach(() => window.localStorage.clear());

describe('error messages (spec §8)', () => {
  it('uses detail, else error, else HTTP {status}', () => {
    expect(errorMessageFromBody({ detail: 'Nope', error: 'x' }, 400)).toBe('Nope');
    expect(errorMessageFromBody({ error: 'Broken' }, 500)).toBe('Broken');
    expect(errorMessageFromBody({ email: ['Enter a valid email address.'] }, 400)).toBe('HTTP 400');
    expect(errorMessageFromBody(null, 502)).toBe('HTTP 502');
  });

  it('surfaces field errors of a 400', async () => {
    useServer(() => json(400, { email: ['A user is already registered with this e-mail address.'], detail: 'A user is already registered with this e-mail address.' }));
    const error = await apiRequest('/api/auth/register/', { method: 'POST', body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('A user is already registered with this e-mail address.');
    expect((error as ApiError).fieldErrors).toEqual({ email: 'A user is already registered with this e-mail address.' });
  });
});

describe('bearer token and refresh on 401', () => {
  it('attaches the access token when present, and not when asked not to', async () => {
    tokenStorage.setTokens('A1', 'R1');
    useServer(() => json(200, { ok: true }));
    await apiRequest('/api/auth/profile/');
    await apiRequest('/api/auctions/list/', { auth: false });
    expect(calls.map((c) => c.auth)).toEqual(['Bearer A1', undefined]);
  });

  it('refreshes once for concurrent 401s, stores the rotated refresh token and retries each request once', async () => {
    tokenStorage.setTokens('old', 'R1');
    let refreshes = 0;
    useServer(async (url, init) => {
      const auth = (init.headers as Record<string, string>).Authorization;
      if (url.pathname === '/api/auth/token/refresh/') {
        refreshes++;
        await new Promise((r) => setTimeout(r, 20));
        return json(200, { access: 'new', refresh: 'R2' });
      }
      return auth === 'Bearer new' ? json(200, { path: url.pathname }) : json(401, { detail: 'Token expired' });
    });
    const results = await Promise.all(['/api/a/', '/api/b/', '/api/c/'].map((p) => apiRequest<{ path: string }>(p)));
    expect(results.map((r) => r.path)).toEqual(['/api/a/', '/api/b/', '/api/c/']);
    expect(refreshes).toBe(1);
    expect(calls.find((c) => c.path === '/api/auth/token/refresh/')?.body).toEqual({ refresh: 'R1' });
    expect(tokenStorage.getAccess()).toBe('new');
    expect(tokenStorage.getRefresh()).toBe('R2');
    expect(authFailures).toBe(0);
  });

  it("clears the session and reports 'Authentication failed' when the refresh fails", async () => {
    tokenStorage.setTokens('old', 'dead');
    tokenStorage.setUser({ id: 1, email: 'a@b.c', first_name: 'A', last_name: 'B' });
    useServer((url) => (url.pathname === '/api/auth/token/refresh/' ? json(401, { detail: 'Token is invalid or expired' }) : json(401, { detail: 'expired' })));
    await expect(apiRequest('/api/auth/profile/')).rejects.toThrow(AUTH_FAILED_MESSAGE);
    expect(tokenStorage.getAccess()).toBeNull();
    expect(tokenStorage.getRefresh()).toBeNull();
    expect(tokenStorage.getUser()).toBeNull();
    expect(authFailures).toBe(1);
  });

  it('gives up after one retry when the new token is refused too', async () => {
    tokenStorage.setTokens('old', 'R1');
    useServer((url) => (url.pathname === '/api/auth/token/refresh/' ? json(200, { access: 'new', refresh: 'R2' }) : json(401, { detail: 'no' })));
    await expect(apiRequest('/api/auth/profile/')).rejects.toThrow(AUTH_FAILED_MESSAGE);
    expect(calls.map((c) => c.path)).toEqual(['/api/auth/profile/', '/api/auth/token/refresh/', '/api/auth/profile/']);
    expect(authFailures).toBe(1);
  });

  it('does not refresh for a 401 on a call made without a token (wrong password)', async () => {
    useServer(() => json(401, { detail: 'Unable to log in with provided credentials.' }));
    await expect(apiRequest('/api/auth/login/', { method: 'POST', body: {}, auth: false })).rejects.toThrow('Unable to log in with provided credentials.');
    expect(calls).toHaveLength(1);
    expect(authFailures).toBe(0);
  });
});

describe('query retries (spec §9)', () => {
  it('backs off exponentially from 1 s, capped at 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
  it('retries 3 times, but not answers a retry cannot change', () => {
    const server = new ApiError('boom', 500);
    expect([0, 1, 2, 3].map((n) => shouldRetry(n, server))).toEqual([true, true, true, false]);
    expect(shouldRetry(0, new TypeError('Failed to fetch'))).toBe(true);
    expect(shouldRetry(0, new ApiError('bad', 400))).toBe(false);
    expect(shouldRetry(0, new ApiError('slow down', 429))).toBe(true);
  });
});
