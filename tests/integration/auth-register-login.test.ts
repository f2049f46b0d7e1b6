/**
 * Registration and sign-in over the real API and database: success, each validation error,
 * wrong password, unknown fields, hostile strings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { findUserByEmail } from '../../services/shared/repositories/users-repository.js';
import { registrationPayload, registerUser, STRONG_PASSWORD, uniqueEmail } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';

let app: ApiApp;
let ctx: TestContext;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, ctx, close } = await createTestApp({ env: { AUTH_IP_RATE_LIMIT: '1000', AUTH_ACCOUNT_RATE_LIMIT: '1000' } }));
});
afterAll(async () => close?.());

const register = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/auth/register/', payload });
const login = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/auth/login/', payload });

describe('POST /api/auth/register/', () => {
  it('creates the account and signs in: access_token, refresh_token, user', async () => {
    const email = uniqueEmail();
    const res = await register(registrationPayload({ email, phone: '+1 555 0100', city: 'Austin', address: '1 Main St' }));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'refresh_token', 'user']);
    expect(body.user).toEqual({
      id: expect.any(Number),
      email,
      first_name: 'Dana',
      last_name: 'Miller',
      date_joined: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      phone: '+1 555 0100',
      city: 'Austin',
      address: '1 Main St',
      zip: '',
    });
    const stored = await findUserByEmail(ctx.database.db, email);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(stored?.passwordHash).not.toContain(STRONG_PASSWORD);
    const profile = await app.inject({ method: 'GET', url: '/api/auth/profile/', headers: { authorization: `Bearer ${body.access_token}` } });
    expect(profile.json()).toEqual(body.user);
  });

  it('stores omitted, null or blank optional fields as empty', async () => {
    const omitted = await registerUser(app);
    expect(omitted.user).toMatchObject({ phone: '', city: '', address: '' });
    const blank = await registerUser(app, { phone: null, city: '   ', address: '' });
    expect(blank.user).toMatchObject({ phone: '', city: '', address: '' });
  });

  it('refuses unknown fields, naming each, and creates no account (issue 40)', async () => {
    const payload = registrationPayload();
    const res = await register({ ...payload, is_staff: true, id: 999, plan: 'enterprise' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ is_staff: ['is_staff: unknown field.'], id: ['id: unknown field.'], plan: ['plan: unknown field.'], detail: 'is_staff: unknown field.' });
    // The address is still free: nothing was created.
    const clean = await register(payload);
    expect(clean.statusCode, clean.body).toBe(201);
    expect(clean.json().user.id).not.toBe(999);
  });

  it('names every missing required field', async () => {
    const res = await register({});
    expect(res.statusCode).toBe(400);
    const body = res.json();
    for (const field of ['email', 'password1', 'password2', 'first_name', 'last_name']) {
      expect(body[field][0]).toMatch(/This field is required\./);
    }
    expect(typeof body.detail).toBe('string');
  });

  it.each([
    ['email', { email: 'not-an-email' }, /Enter a valid email address/],
    ['first_name', { first_name: '   ' }, /may not be blank/],
    ['last_name', { last_name: 'x'.repeat(151) }, /no more than 150 characters/],
    ['phone', { phone: '1'.repeat(33) }, /no more than 32 characters/],
    ['city', { city: 'c'.repeat(256) }, /no more than 255 characters/],
    ['address', { address: 'a'.repeat(501) }, /no more than 500 characters/],
    ['terms_accepted', { terms_accepted: 'yes' }, /Not a valid boolean/],
    ['email', { email: 42 }, /Not a valid string/],
  ])('refuses a bad %s', async (field, override, message) => {
    const res = await register(registrationPayload(override));
    expect(res.statusCode).toBe(400);
    expect(res.json()[field][0]).toMatch(message);
  });

  it('requires the terms to be accepted, checked on the server', async () => {
    for (const terms of [false, undefined, null]) {
      const res = await register(registrationPayload({ terms_accepted: terms }));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ terms_accepted: ['You must accept the terms and conditions.'], detail: 'You must accept the terms and conditions.' });
    }
  });

  it.each([
    ['short', 'Xq7#mZ2', 'This password is too short. It must contain at least 8 characters.'],
    ['numeric', '90417263815', 'This password is entirely numeric.'],
    ['common', 'iloveyou', 'This password is too common.'],
    ['similar to the e-mail', 'dana.miller77', 'The password is too similar to the email address.'],
    ['similar to the name', 'Millerrr', 'The password is too similar to the last name.'],
  ])('refuses a %s password under password1', async (label, password, message) => {
    const email = label === 'similar to the e-mail' ? `dana.miller77-${Date.now()}@example.com` : uniqueEmail('zq');
    const res = await register(registrationPayload({ email, password1: password, password2: password }));
    expect(res.statusCode).toBe(400);
    expect(res.json().password1).toContain(message);
  });

  it('refuses passwords that differ', async () => {
    const res = await register(registrationPayload({ password2: `${STRONG_PASSWORD}!` }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ non_field_errors: ["The two password fields didn't match."] });
  });

  it('refuses an e-mail already registered, whatever its case', async () => {
    const email = uniqueEmail('dup');
    await registerUser(app, { email });
    const res = await register(registrationPayload({ email: email.toUpperCase() }));
    expect(res.statusCode).toBe(400);
    expect(res.json().email).toEqual(['A user is already registered with this e-mail address.']);
  });
});

describe('POST /api/auth/login/', () => {
  it('signs in with the right password, e-mail in any case', async () => {
    const email = uniqueEmail('login');
    const registered = await registerUser(app, { email });
    const res = await login({ email: email.toUpperCase(), password: STRONG_PASSWORD });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toEqual(registered.user);
    expect(body.access_token).not.toBe(registered.access_token);
    expect(body.refresh_token).not.toBe(registered.refresh_token);
  });

  it('answers a wrong password and an unknown e-mail identically', async () => {
    const email = uniqueEmail('login');
    await registerUser(app, { email });
    const wrong = await login({ email, password: 'Wrong-Password-1' });
    const unknown = await login({ email: uniqueEmail('nobody'), password: 'Wrong-Password-1' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ non_field_errors: ['Unable to log in with provided credentials.'], detail: 'Unable to log in with provided credentials.' });
    expect(unknown.statusCode).toBe(wrong.statusCode);
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('validates its payload', async () => {
    const res = await login({ email: 'nope' });
    expect(res.statusCode).toBe(400);
    expect(res.json().email[0]).toMatch(/valid email/);
    expect(res.json().password[0]).toMatch(/required/);
  });
});

describe('hostile input', () => {
  it('stores SQL fragments and unicode verbatim', async () => {
    const name = "Robert'); DROP TABLE users;--";
    const city = 'Zürich 東京 🚜 \u202Eevil';
    const address = '<script>alert(1)</script> & "quotes"';
    const res = await register(registrationPayload({ first_name: name, last_name: 'Ñoño', city, address }));
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ first_name: name, last_name: 'Ñoño', city, address });
    const count = await ctx.database.sql`SELECT count(*)::int AS n FROM users`;
    expect(count[0]!.n).toBeGreaterThan(0);
  });

  it('answers 10 kB names, NUL bytes and SQL in e-mails with 400, never 500', async () => {
    const cases = [
      { first_name: 'A'.repeat(10_240) },
      { last_name: 'B'.repeat(10_240) },
      { first_name: 'nul\u0000byte' },
      { email: "x' OR '1'='1@example.com" },
      { email: `${'a'.repeat(250)}@example.com` },
      { password1: 'p'.repeat(5000), password2: 'p'.repeat(5000) },
    ];
    for (const override of cases) {
      const res = await register(registrationPayload(override));
      expect(res.statusCode, JSON.stringify(override).slice(0, 80)).toBe(400);
      expect(typeof res.json().detail).toBe('string');
    }
    const sqlLogin = await login({ email: "admin@example.com' --", password: "' OR 1=1 --" });
    expect(sqlLogin.statusCode).toBe(400);
    const nulLogin = await login({ email: 'a@example.com', password: 'x\u0000y' });
    expect(nulLogin.statusCode).toBe(400);
  });

  it('answers non-object bodies with 400', async () => {
    for (const payload of ['[]', '"text"', 'null', '{"email": ']) {
      const res = await app.inject({ method: 'POST', url: '/api/auth/login/', payload, headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, payload).toBe(400);
    }
  });
});

describe('bounded bodies', () => {
  it('refuses account payloads over 64 KiB with 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/register/',
      payload: JSON.stringify(registrationPayload({ address: 'x'.repeat(70 * 1024) })),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ detail: 'Request body is too large.' });
  });
});
