/**
 * Abuse limits: per client IP (in the API process) and per e-mail address (in PostgreSQL, so
 * two API replicas on one database count together). Over a limit: 429, Retry-After, {detail}.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ApiApp } from '../../services/api/app.js';
import { registerUser, registrationPayload, STRONG_PASSWORD, uniqueEmail } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';

describe('per-IP limits', () => {
  let app: ApiApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await createTestApp({ env: { AUTH_IP_RATE_LIMIT: '3', AUTH_ACCOUNT_RATE_LIMIT: '1000' } }));
  });
  afterAll(async () => close?.());

  it.each([
    ['login', '/api/auth/login/', () => ({ email: uniqueEmail(), password: 'whatever-123' })],
    ['register', '/api/auth/register/', () => registrationPayload({ terms_accepted: false })],
    ['password reset', '/api/auth/password/reset/', () => ({ email: uniqueEmail() })],
  ])('limits %s per client IP with 429, Retry-After and a detail', async (_label, url, payload) => {
    // One address per route tested (a random one could repeat between the cases).
    const ip = `203.0.113.${10 + ['login', 'register', 'password reset'].indexOf(_label)}`;
    for (let i = 0; i < 3; i++) {
      const ok = await app.inject({ method: 'POST', url, payload: payload(), remoteAddress: ip });
      expect(ok.statusCode).not.toBe(429);
    }
    const limited = await app.inject({ method: 'POST', url, payload: payload(), remoteAddress: ip });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().detail).toMatch(/throttled/i);
    // Another client is not affected.
    const other = await app.inject({ method: 'POST', url, payload: payload(), remoteAddress: '198.51.100.7' });
    expect(other.statusCode).not.toBe(429);
  });

  it('does not limit the other account routes', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ method: 'POST', url: '/api/auth/token/refresh/', payload: { refresh: 'x' }, remoteAddress: '192.0.2.1' });
      expect(res.statusCode).toBe(401);
    }
  });
});

describe('per-account limits shared by API replicas', () => {
  let replicaA: ApiApp;
  let replicaB: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app: replicaA, ctx, close } = await createTestApp({ env: { AUTH_IP_RATE_LIMIT: '1000', AUTH_ACCOUNT_RATE_LIMIT: '4', AUTH_ACCOUNT_RATE_WINDOW_SECONDS: '600' } }));
    // A second API on the same database: its own process memory, the same PostgreSQL counters.
    replicaB = await buildApp(ctx, { webDist: '/nonexistent' });
    await replicaB.ready();
  });
  afterAll(async () => {
    await replicaB?.close();
    await close?.();
  });

  it('locks an account after failed logins counted across replicas, from any IP', async () => {
    const user = await registerUser(replicaA);
    const attempt = (app: ApiApp, password: string, ip: string) =>
      app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: user.user.email, password }, remoteAddress: ip });
    expect((await attempt(replicaA, 'wrong-1', '10.0.0.1')).statusCode).toBe(400);
    expect((await attempt(replicaB, 'wrong-2', '10.0.0.2')).statusCode).toBe(400);
    expect((await attempt(replicaA, 'wrong-3', '10.0.0.3')).statusCode).toBe(400);
    expect((await attempt(replicaB, 'wrong-4', '10.0.0.4')).statusCode).toBe(400);
    const locked = await attempt(replicaA, STRONG_PASSWORD, '10.0.0.5');
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(500);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(600);
    expect(locked.json().detail).toMatch(/^Too many attempts for this account\. Expected available in \d+ seconds\.$/);
    // Other accounts are unaffected.
    const other = await registerUser(replicaB);
    const ok = await replicaB.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: other.user.email, password: STRONG_PASSWORD } });
    expect(ok.statusCode).toBe(200);
  });

  it('resets the failure count on a successful login', async () => {
    const user = await registerUser(replicaA);
    for (let i = 0; i < 3; i++) {
      await replicaA.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: user.user.email, password: 'nope-nope' } });
    }
    expect((await replicaB.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: user.user.email, password: STRONG_PASSWORD } })).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await replicaA.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: user.user.email, password: 'nope-nope' } })).statusCode).toBe(400);
    }
  });

  it('limits reset requests per address, known or not (a 429 reveals nothing)', async () => {
    const user = await registerUser(replicaA);
    for (const email of [user.user.email, uniqueEmail('ghost')]) {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const app = i % 2 ? replicaB : replicaA;
        codes.push((await app.inject({ method: 'POST', url: '/api/auth/password/reset/', payload: { email }, remoteAddress: `10.1.0.${i}` })).statusCode);
      }
      expect(codes).toEqual([200, 200, 200, 200, 429]);
    }
  });

  it('limits registrations per address', async () => {
    const email = uniqueEmail('spam');
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      codes.push((await replicaB.inject({ method: 'POST', url: '/api/auth/register/', payload: registrationPayload({ email, terms_accepted: false }) })).statusCode);
    }
    expect(codes).toEqual([400, 400, 400, 400, 429]);
    const [row] = await ctx.database.sql`SELECT count(*)::int AS n FROM rate_limit_counters`;
    expect(row!.n).toBeGreaterThan(0);
  });
});
