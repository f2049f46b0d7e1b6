/**
 * POST /api/auth/google/: Google ID tokens verified with the real jose against a local key set
 * (GOOGLE_JWKS_URL) for our client id; 503 when Google sign-in is not configured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { bearer, registerUser, STRONG_PASSWORD } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import { startFakeGoogle, type FakeGoogle } from '../support/fake-google.js';

let google: FakeGoogle;
let app: ApiApp;
let close: () => Promise<void>;

beforeAll(async () => {
  google = await startFakeGoogle();
  ({ app, close } = await createTestApp({ env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_JWKS_URL: google.jwksUrl } }));
});
afterAll(async () => {
  await close?.();
  await google?.close();
});

const signIn = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/auth/google/', payload });

describe('Google sign-in', () => {
  it('creates the account from a valid ID token and signs in; the next time finds the same user', async () => {
    const token = await google.idToken({ sub: 'g-1001', email: 'gina.new@example.com' });
    const first = await signIn({ id_token: token });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.user).toMatchObject({ email: 'gina.new@example.com', first_name: 'Gina', last_name: 'Lopez', phone: '', city: '', address: '' });
    expect((await app.inject({ method: 'GET', url: '/api/auth/profile/', headers: bearer(body.access_token) })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/api/auth/token/refresh/', payload: { refresh: body.refresh_token } })).statusCode).toBe(200);

    // Google Identity Services calls the token `credential`.
    const again = await signIn({ credential: await google.idToken({ sub: 'g-1001', email: 'gina.new@example.com' }) });
    expect(again.statusCode).toBe(200);
    expect(again.json().user.id).toBe(body.user.id);
    expect(google.requests).toBeGreaterThan(0);
    // A Google-only account has no password to sign in with.
    const pw = await app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: 'gina.new@example.com', password: 'anything-at-all' } });
    expect(pw.statusCode).toBe(400);
  });

  it('links a verified Google address to the existing password account', async () => {
    const existing = await registerUser(app);
    const res = await signIn({ id_token: await google.idToken({ sub: 'g-2002', email: existing.user.email.toUpperCase() }) });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.id).toBe(existing.user.id);
    // Both ways still work.
    const pw = await app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: existing.user.email, password: STRONG_PASSWORD } });
    expect(pw.statusCode).toBe(200);
  });

  it.each([
    ['another audience', { aud: 'someone-else.apps.googleusercontent.com' }, {}],
    ['another issuer', { iss: 'https://evil.example' }, {}],
    ['an expired token', {}, { expiresIn: Math.floor(Date.now() / 1000) - 60 }],
    ['a key Google did not publish', {}, { key: 'foreign' as const }],
  ])('refuses %s with a 400 on id_token', async (_label, claims, opts) => {
    const res = await signIn({ id_token: await google.idToken({ sub: 'g-bad', email: 'bad@example.com', ...claims }, opts) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ id_token: ['Invalid Google ID token.'], detail: 'Invalid Google ID token.' });
  });

  it('refuses alg none and junk', async () => {
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: 'https://accounts.google.com', aud: google.clientId, sub: 'x', email: 'x@example.com', email_verified: true, exp: 9999999999 })).toString('base64url')}.`;
    expect((await signIn({ id_token: unsigned })).statusCode).toBe(400);
    expect((await signIn({ id_token: 'junk' })).statusCode).toBe(400);
  });

  it('refuses an unverified address and a missing token', async () => {
    const unverified = await signIn({ id_token: await google.idToken({ sub: 'g-3003', email: 'unverified@example.com', email_verified: false }) });
    expect(unverified.statusCode).toBe(400);
    expect(unverified.json().id_token).toEqual(['This Google account has no verified e-mail address.']);
    const missing = await signIn({});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().id_token).toEqual(['This field is required.']);
  });
});

describe('Google sign-in without configuration or keys', () => {
  it('answers 503 when GOOGLE_CLIENT_ID is not set', async () => {
    const bare = await createTestApp();
    try {
      const res = await bare.app.inject({ method: 'POST', url: '/api/auth/google/', payload: { id_token: 'whatever' } });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ detail: 'Google sign-in is not configured.' });
    } finally {
      await bare.close();
    }
  });

  it("answers 503 when Google's keys cannot be fetched", async () => {
    const down = await startFakeGoogle();
    const jwksUrl = down.jwksUrl;
    await down.close();
    const other = await createTestApp({ env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_JWKS_URL: jwksUrl } });
    try {
      const res = await other.app.inject({ method: 'POST', url: '/api/auth/google/', payload: { id_token: await google.idToken() } });
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toMatch(/unavailable/);
    } finally {
      await other.close();
    }
  });
});
