/**
 * Password reset end to end: the request answers the same for every address, the notifier
 * delivers the e-mail to the outbox, its link resets the password once, and only within its
 * lifetime and while the password is unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsFor } from '../../services/accounts/accounts-service.js';
import { makeResetToken } from '../../services/accounts/reset-tokens.js';
import { resolveSigningKeys } from '../../services/accounts/signing-keys.js';
import type { ApiApp } from '../../services/api/app.js';
import { startNotifier } from '../../services/notifier/index.js';
import { listMessages, type OutboxMessage } from '../../services/shared/repositories/outbox-repository.js';
import { findUserByEmail } from '../../services/shared/repositories/users-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser, STRONG_PASSWORD, uniqueEmail } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { median, waitFor } from '../support/wait.js';

let app: ApiApp;
let ctx: TestContext;
let notifier: ServiceHandle;
let close: () => Promise<void>;
const NEW_PASSWORD = 'Grader-Thunder-2031';

beforeAll(async () => {
  ({ app, ctx, close } = await createTestApp({ env: { AUTH_IP_RATE_LIMIT: '1000', AUTH_ACCOUNT_RATE_LIMIT: '1000', APP_URL: 'http://deals.test:8080' } }));
  notifier = await startNotifier(ctx);
});
afterAll(async () => {
  await notifier?.stop();
  await close?.();
});

const requestReset = (email: string) => app.inject({ method: 'POST', url: '/api/auth/password/reset/', payload: { email } });
const confirm = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/auth/password/reset/confirm/', payload });
const login = (email: string, password: string) => app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email, password } });

/** The reset e-mail as delivered to the outbox, and the uid and token of its link. */
async function resetEmailFor(email: string, after = new Date(0)): Promise<{ message: OutboxMessage; uid: string; token: string; link: string }> {
  const message = await waitFor(
    async () => (await listMessages(ctx.database.db, { to: email, kind: 'password_reset' })).find((m) => m.status === 'sent' && m.createdAt >= after),
    15_000,
    `reset e-mail to ${email}`,
  );
  const link = /http:\/\/deals\.test:8080\/reset\/([^/\s]+)\/([^/\s]+)/.exec(message.textBody);
  expect(link, message.textBody).not.toBeNull();
  return { message, uid: link![1]!, token: link![2]!, link: link![0] };
}

describe('password reset', () => {
  it('e-mails a link through the outbox, and the link resets the password', async () => {
    const user = await registerUser(app, { first_name: 'Rosa' });
    const res = await requestReset(user.user.email);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ detail: 'Password reset e-mail has been sent.' });

    const { message, uid, token } = await resetEmailFor(user.user.email);
    expect(message).toMatchObject({ channel: 'email', transport: 'outbox', status: 'sent', attempts: 1, subject: 'Reset your Deal Radar password' });
    expect(message.textBody).toContain('Hello Rosa,');
    expect(message.htmlBody).toContain(`/reset/${uid}/${token}`);

    const done = await confirm({ uid, token, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ detail: 'Password has been reset with the new password.' });
    expect((await login(user.user.email, NEW_PASSWORD)).statusCode).toBe(200);
    expect((await login(user.user.email, STRONG_PASSWORD)).statusCode).toBe(400);
    // Every session that existed before the reset is signed out.
    expect((await app.inject({ method: 'GET', url: '/api/auth/profile/', headers: bearer(user.access_token) })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/auth/token/refresh/', payload: { refresh: user.refresh_token } })).statusCode).toBe(401);

    // The link works once.
    const again = await confirm({ uid, token, new_password1: 'Another-Pass-9876', new_password2: 'Another-Pass-9876' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ token: ['This password reset link is invalid or has expired.'], detail: 'This password reset link is invalid or has expired.' });
  });

  it('refuses a link once the password has changed another way', async () => {
    const user = await registerUser(app);
    await requestReset(user.user.email);
    const { uid, token } = await resetEmailFor(user.user.email);
    const changed = await app.inject({
      method: 'POST',
      url: '/api/auth/password/change/',
      headers: bearer(user.access_token),
      payload: { old_password: STRONG_PASSWORD, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD },
    });
    expect(changed.statusCode).toBe(200);
    const res = await confirm({ uid, token, new_password1: 'Another-Pass-9876', new_password2: 'Another-Pass-9876' });
    expect(res.statusCode).toBe(400);
    expect(res.json().token).toEqual(['This password reset link is invalid or has expired.']);
  });

  it('refuses an expired link', async () => {
    const user = await registerUser(app);
    const row = (await findUserByEmail(ctx.database.db, user.user.email))!;
    const keys = resolveSigningKeys(ctx.config);
    const issued = Date.now() - (ctx.config.PASSWORD_RESET_TTL_SECONDS + 60) * 1000;
    const stale = makeResetToken(keys.passwordReset, row, issued);
    const fresh = makeResetToken(keys.passwordReset, row);
    const uid = Buffer.from(String(row.id)).toString('base64url');
    const res = await confirm({ uid, token: stale, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
    expect(res.statusCode).toBe(400);
    expect(res.json().token).toEqual(['This password reset link is invalid or has expired.']);
    // The same user with a token issued now succeeds: only the age differed.
    expect((await confirm({ uid, token: fresh, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('checks the new password without spending the link', async () => {
    const user = await registerUser(app);
    await requestReset(user.user.email);
    const { uid, token } = await resetEmailFor(user.user.email);
    const weak = await confirm({ uid, token, new_password1: '12345678', new_password2: '12345678' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().new_password1).toEqual(['This password is too common.', 'This password is entirely numeric.']);
    const differ = await confirm({ uid, token, new_password1: NEW_PASSWORD, new_password2: 'Something-Else-11' });
    expect(differ.json().new_password2).toEqual(["The two password fields didn't match."]);
    expect((await confirm({ uid, token, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('refuses bad uids and tokens with field errors, never a 500', async () => {
    const user = await registerUser(app);
    const uid = Buffer.from(String(user.user.id)).toString('base64url');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ uid: 'MTIzNDU2Nzg5', token: 'abc-def' }, 'uid'],
      [{ uid: '!!!', token: 'abc-def' }, 'uid'],
      [{ uid: "1' OR '1'='1", token: 'x' }, 'uid'],
      [{ uid, token: 'abc-def' }, 'token'],
      [{ uid, token: 'z'.repeat(300) }, 'token'],
      [{}, 'uid'],
    ];
    for (const [payload, field] of cases) {
      const res = await confirm({ new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD, ...payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()[field], JSON.stringify(payload)).toBeDefined();
    }
  });
});

describe('no account enumeration', () => {
  it('answers unknown addresses exactly as known ones and sends nothing', async () => {
    const user = await registerUser(app);
    const known = await requestReset(user.user.email);
    const unknownEmail = uniqueEmail('ghost');
    const unknown = await requestReset(unknownEmail);
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(known.headers).sort());
    await resetEmailFor(user.user.email);
    await accountsFor(ctx).drain();
    expect(await listMessages(ctx.database.db, { to: unknownEmail })).toEqual([]);
  });

  it('takes similar time for known and unknown addresses (reset and login)', async () => {
    const user = await registerUser(app);
    const time = async (fn: () => Promise<unknown>) => {
      const start = process.hrtime.bigint();
      await fn();
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const resetKnown: number[] = [];
    const resetUnknown: number[] = [];
    const loginKnown: number[] = [];
    const loginUnknown: number[] = [];
    for (let i = 0; i < 9; i++) {
      resetKnown.push(await time(() => requestReset(user.user.email)));
      resetUnknown.push(await time(() => requestReset(uniqueEmail('ghost'))));
    }
    // The known address's e-mails are queued and delivered after answering: let that work
    // finish so it does not weigh on the login measurements.
    await accountsFor(ctx).drain();
    await waitFor(async () => ((await listMessages(ctx.database.db, { to: user.user.email })).every((m) => m.status === 'sent') ? true : undefined));
    for (let i = 0; i < 9; i++) {
      loginKnown.push(await time(() => login(user.user.email, 'Wrong-Password-1')));
      loginUnknown.push(await time(() => login(uniqueEmail('ghost'), 'Wrong-Password-1')));
    }
    const [rk, ru, lk, lu] = [median(resetKnown), median(resetUnknown), median(loginKnown), median(loginUnknown)];
    console.log(`reset median ms: known ${rk.toFixed(1)}, unknown ${ru.toFixed(1)}; login: known ${lk.toFixed(1)}, unknown ${lu.toFixed(1)}`);
    // Same work before answering: the differences are noise, far below a hash or a queue write.
    expect(Math.abs(rk - ru)).toBeLessThan(Math.max(15, 0.5 * Math.max(rk, ru)));
    // Unknown e-mails verify against a dummy hash: both pay for one argon2 verification.
    // Skipping the hash would make unknown logins about 20 times faster.
    expect(lu / lk).toBeGreaterThan(0.5);
    expect(lu / lk).toBeLessThan(2);
    await accountsFor(ctx).drain();
  });
});
