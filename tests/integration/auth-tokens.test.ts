/**
 * Access and refresh tokens over the real API: the guard other features use (requireUser),
 * expired/tampered/alg-none JWTs, refresh rotation and reuse, logout.
 */
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsFor } from '../../services/accounts/accounts-service.js';
import { signAccessToken } from '../../services/accounts/access-tokens.js';
import { resolveSigningKeys } from '../../services/accounts/signing-keys.js';
import type { ApiApp } from '../../services/api/app.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';

let app: ApiApp;
let ctx: TestContext;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, ctx, close } = await createTestApp({ env: { AUTH_IP_RATE_LIMIT: '1000', AUTH_ACCOUNT_RATE_LIMIT: '1000' } }));
});
afterAll(async () => close?.());

const profile = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/api/auth/profile/', headers });
const refresh = (token: string) => app.inject({ method: 'POST', url: '/api/auth/token/refresh/', payload: { refresh: token } });

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

describe('the access-token guard', () => {
  let user: SignedIn;
  beforeAll(async () => {
    user = await registerUser(app);
  });

  it('lets a valid bearer token through', async () => {
    const res = await profile(bearer(user.access_token));
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(user.user.id);
  });

  it('answers 401 without credentials, with a Bearer challenge', async () => {
    const res = await profile();
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it.each([
    ['a malformed header', 'Token abc'],
    ['garbage', 'Bearer not-a-jwt'],
  ])('answers 401 for %s', async (_label, authorization) => {
    const res = await profile({ authorization });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'Given token not valid for any token type' });
  });

  it('refuses an expired token', async () => {
    const keys = resolveSigningKeys(ctx.config);
    const sid = claimsOf(user.access_token).sid as string;
    const expired = await signAccessToken(keys.access, { userId: user.user.id, sessionId: sid }, 60, Date.now() - 61_000);
    const res = await profile(bearer(expired));
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe('Given token not valid for any token type');
    // The same token minted a minute later is fine: only the expiry differs.
    const fresh = await signAccessToken(keys.access, { userId: user.user.id, sessionId: sid }, 60);
    expect((await profile(bearer(fresh))).statusCode).toBe(200);
  });

  it('refuses a tampered token (another user id in the payload)', async () => {
    const other = await registerUser(app);
    const [header, , signature] = user.access_token.split('.');
    const payload = Buffer.from(JSON.stringify({ ...claimsOf(user.access_token), sub: String(other.user.id) })).toString('base64url');
    const res = await profile(bearer(`${header}.${payload}.${signature}`));
    expect(res.statusCode).toBe(401);
  });

  it('refuses alg none and tokens signed with another algorithm or secret', async () => {
    const claims = claimsOf(user.access_token);
    const { iat: _iat, exp: _exp, ...rest } = claims;
    const none = new UnsecuredJWT(rest).setIssuedAt().setExpirationTime('10m').encode();
    expect((await profile(bearer(none))).statusCode).toBe(401);
    const keys = resolveSigningKeys(ctx.config);
    const hs384 = await new SignJWT(rest).setProtectedHeader({ alg: 'HS384' }).setIssuedAt().setExpirationTime('10m').sign(keys.access);
    expect((await profile(bearer(hs384))).statusCode).toBe(401);
    const otherSecret = await new SignJWT(rest)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode('someone-elses-secret-that-is-long-enough!!'));
    expect((await profile(bearer(otherSecret))).statusCode).toBe(401);
  });
});

describe('POST /api/auth/token/refresh/', () => {
  it('rotates: answers {access, refresh}, and the old refresh token dies', async () => {
    const user = await registerUser(app);
    const first = await refresh(user.refresh_token);
    expect(first.statusCode).toBe(200);
    const pair = first.json();
    expect(Object.keys(pair).sort()).toEqual(['access', 'refresh']);
    expect(pair.refresh).not.toBe(user.refresh_token);
    expect((await profile(bearer(pair.access))).statusCode).toBe(200);
    // Same session: the new access token names it.
    expect(claimsOf(pair.access).sid).toBe(claimsOf(user.access_token).sid);

    const second = await refresh(pair.refresh);
    expect(second.statusCode).toBe(200);
  });

  it('refuses a reused (already rotated) token and revokes its whole session', async () => {
    const user = await registerUser(app);
    const rotated = (await refresh(user.refresh_token)).json();
    const reuse = await refresh(user.refresh_token);
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json()).toEqual({ detail: 'Token is invalid or expired' });
    // The legitimate holder of the newest token is signed out too: the family is dead.
    expect((await refresh(rotated.refresh)).statusCode).toBe(401);
    expect((await profile(bearer(rotated.access))).statusCode).toBe(401);
    expect((await profile(bearer(user.access_token))).statusCode).toBe(401);
    const [session] = await ctx.database.sql`SELECT revoked_reason FROM auth_sessions WHERE id = ${claimsOf(user.access_token).sid as string}`;
    expect(session!.revoked_reason).toBe('refresh_reuse');
  });

  it('lets only one of two concurrent refreshes of the same token win', async () => {
    const user = await registerUser(app);
    const results = await Promise.all([refresh(user.refresh_token), refresh(user.refresh_token)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401]);
  });

  it('refuses unknown, expired and malformed tokens', async () => {
    expect((await refresh('x'.repeat(43))).statusCode).toBe(401);
    const res = await app.inject({ method: 'POST', url: '/api/auth/token/refresh/', payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().refresh[0]).toMatch(/required/);
    const user = await registerUser(app);
    await ctx.database.sql`UPDATE refresh_tokens SET expires_at = now() - interval '1 second'
      WHERE session_id = ${claimsOf(user.access_token).sid as string}`;
    expect((await refresh(user.refresh_token)).statusCode).toBe(401);
  });

  it('never stores refresh tokens in clear', async () => {
    const user = await registerUser(app);
    const rows = await ctx.database.sql`SELECT token_hash FROM refresh_tokens WHERE token_hash = ${user.refresh_token}`;
    expect(rows).toHaveLength(0);
    const all = await ctx.database.sql`SELECT count(*)::int AS n FROM refresh_tokens WHERE session_id = ${claimsOf(user.access_token).sid as string}`;
    expect(all[0]!.n).toBe(1);
  });
});

describe('POST /api/auth/logout/', () => {
  it('revokes the session of the refresh token given: its refresh and access tokens stop working', async () => {
    const user = await registerUser(app);
    const res = await app.inject({ method: 'POST', url: '/api/auth/logout/', payload: { refresh_token: user.refresh_token } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ detail: 'Successfully logged out.' });
    expect((await refresh(user.refresh_token)).statusCode).toBe(401);
    expect((await profile(bearer(user.access_token))).statusCode).toBe(401);
  });

  it('leaves the user’s other sessions alone', async () => {
    const user = await registerUser(app);
    const other = (await app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: user.user.email, password: 'Bulldozer-Sunset-42' } })).json();
    await app.inject({ method: 'POST', url: '/api/auth/logout/', payload: { refresh_token: user.refresh_token } });
    expect((await profile(bearer(other.access_token))).statusCode).toBe(200);
    expect((await refresh(other.refresh_token)).statusCode).toBe(200);
  });

  it('refuses an unknown token and a missing one', async () => {
    const unknown = await app.inject({ method: 'POST', url: '/api/auth/logout/', payload: { refresh_token: 'nope' } });
    expect(unknown.statusCode).toBe(401);
    const missing = await app.inject({ method: 'POST', url: '/api/auth/logout/', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().refresh_token[0]).toMatch(/required/);
  });
});

describe('accounts service for other features', () => {
  it('authenticates a token to { id, email, sessionId }', async () => {
    const user = await registerUser(app);
    const auth = await accountsFor(ctx).authenticate(user.access_token);
    expect(auth).toEqual({ id: user.user.id, email: user.user.email, sessionId: claimsOf(user.access_token).sid });
    expect(await accountsFor(ctx).authenticate('junk')).toBeNull();
  });
});
