import { createHmac } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAccessToken, verifyAccessToken } from '../../services/accounts/access-tokens.js';
import { passwordResetEmail, passwordResetLink } from '../../services/accounts/account-emails.js';
import { hashToken, newOpaqueToken } from '../../services/accounts/opaque-tokens.js';
import { hashPassword, verifyPassword, verifyPasswordOrDummy } from '../../services/accounts/password-hashing.js';
import { checkResetToken, decodeUid, encodeUid, makeResetToken } from '../../services/accounts/reset-tokens.js';
import { deriveSigningKeys, loadOrCreateSecret } from '../../services/accounts/signing-keys.js';

const keys = deriveSigningKeys('unit-test-secret-that-is-long-enough-0123456789');
const claims = { userId: 42, sessionId: '0b6c8f7e-1111-4222-8333-944445555666' };

function b64(obj: object): string {
  return Buffer.from(JSON.stringify(obj)).toString('base64url');
}

describe('access tokens', () => {
  it('round-trips user and session', async () => {
    const token = await signAccessToken(keys.access, claims, 900);
    expect(await verifyAccessToken(keys.access, token)).toEqual(claims);
  });

  it('expires after its lifetime', async () => {
    const issued = Date.now() - 901_000;
    const token = await signAccessToken(keys.access, claims, 900, issued);
    expect(await verifyAccessToken(keys.access, token)).toBeNull();
    expect(await verifyAccessToken(keys.access, token, issued + 899_000)).toEqual(claims);
  });

  it('refuses a tampered payload or signature', async () => {
    const token = await signAccessToken(keys.access, claims, 900);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: '1' });
    expect(await verifyAccessToken(keys.access, `${header}.${forged}.${signature}`)).toBeNull();
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    expect(await verifyAccessToken(keys.access, `${header}.${payload}.${flipped}`)).toBeNull();
  });

  it('refuses alg none and other algorithms, even signed with our secret', async () => {
    const payload = { sub: '42', sid: claims.sessionId, token_type: 'access', iss: 'deal-radar', aud: 'deal-radar-api' };
    const none = new UnsecuredJWT(payload).setIssuedAt().setExpirationTime('10m').encode();
    expect(await verifyAccessToken(keys.access, none)).toBeNull();
    const handNone = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...payload, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 })}.`;
    expect(await verifyAccessToken(keys.access, handNone)).toBeNull();
    const hs512 = await new SignJWT(payload).setProtectedHeader({ alg: 'HS512' }).setIssuedAt().setExpirationTime('10m').sign(keys.access);
    expect(await verifyAccessToken(keys.access, hs512)).toBeNull();
  });

  it('refuses tokens signed with another secret, or of another type', async () => {
    const other = deriveSigningKeys('another-secret-that-is-also-long-enough-987654');
    expect(await verifyAccessToken(keys.access, await signAccessToken(other.access, claims, 900))).toBeNull();
    const refreshType = await new SignJWT({ token_type: 'refresh', sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('42')
      .setIssuer('deal-radar')
      .setAudience('deal-radar-api')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(keys.access);
    expect(await verifyAccessToken(keys.access, refreshType)).toBeNull();
    expect(await verifyAccessToken(keys.access, 'not.a.jwt')).toBeNull();
  });
});

describe('opaque tokens', () => {
  it('are random, URL-safe and stored as SHA-256', () => {
    const a = newOpaqueToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newOpaqueToken()).not.toBe(a);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toContain(a);
  });
});

describe('password reset tokens', () => {
  const user = { id: 7, email: 'dana@example.com', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$abc$def' };
  const ttl = 24 * 3600;

  it('are valid for their user until they expire', () => {
    const now = Date.now();
    const token = makeResetToken(keys.passwordReset, user, now);
    expect(checkResetToken(keys.passwordReset, user, token, ttl, now + 1000)).toBe('valid');
    expect(checkResetToken(keys.passwordReset, user, token, ttl, now + (ttl + 1) * 1000)).toBe('expired');
  });

  it('die when the password or the e-mail changes, and belong to one user', () => {
    const token = makeResetToken(keys.passwordReset, user);
    expect(checkResetToken(keys.passwordReset, { ...user, passwordHash: '$argon2id$new' }, token, ttl)).toBe('invalid');
    expect(checkResetToken(keys.passwordReset, { ...user, email: 'new@example.com' }, token, ttl)).toBe('invalid');
    expect(checkResetToken(keys.passwordReset, { ...user, id: 8 }, token, ttl)).toBe('invalid');
  });

  it('cannot be forged or have their issue time moved', () => {
    const token = makeResetToken(keys.passwordReset, user, Date.now() - 2 * ttl * 1000);
    const [, sig] = token.split('-') as [string, string];
    const moved = `${Math.floor(Date.now() / 1000).toString(36)}-${sig}`;
    expect(checkResetToken(keys.passwordReset, user, moved, ttl)).toBe('invalid');
    expect(checkResetToken(keys.passwordReset, user, 'garbage', ttl)).toBe('invalid');
    expect(checkResetToken(keys.passwordReset, user, "1' OR '1'='1", ttl)).toBe('invalid');
    // The access-token key does not make valid reset tokens (keys are derived apart).
    const withAccessKey = makeResetToken(keys.access, user);
    expect(checkResetToken(keys.passwordReset, user, withAccessKey, ttl)).toBe('invalid');
  });

  it('encodes uids reversibly and refuses junk', () => {
    expect(decodeUid(encodeUid(12345))).toBe(12345);
    expect(decodeUid('')).toBeNull();
    expect(decodeUid('!!')).toBeNull();
    expect(decodeUid(Buffer.from('-1').toString('base64url'))).toBeNull();
    expect(decodeUid(Buffer.from('99999999999').toString('base64url'))).toBeNull();
  });

  it('make links under APP_URL and e-mails that escape names in HTML', () => {
    const link = passwordResetLink('http://localhost:8080/', 'Nw', 'abc-def');
    expect(link).toBe('http://localhost:8080/reset/Nw/abc-def');
    const mail = passwordResetEmail({ firstName: '<script>x</script>', link, ttlHours: 24 });
    expect(mail.text).toContain(link);
    expect(mail.text).toContain('expires in 24 hours');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;');
  });
});

describe('password hashing', () => {
  it('uses argon2id and verifies only the right password', async () => {
    const hash = await hashPassword('Bulldozer-Sunset-42');
    expect(hash.startsWith('$argon2id$')).toBe(true);
    expect(await verifyPassword(hash, 'Bulldozer-Sunset-42')).toBe(true);
    expect(await verifyPassword(hash, 'bulldozer-sunset-42')).toBe(false);
    expect(await verifyPassword('not a hash', 'x')).toBe(false);
    expect(await verifyPasswordOrDummy(null, 'anything')).toBe(false);
  });
});

describe('signing secret', () => {
  it('is generated once under DATA_DIR with mode 600 and reused', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'secret-'));
    const first = loadOrCreateSecret(dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecret(dir)).toBe(first);
    expect(readFileSync(path.join(dir, 'jwt-secret'), 'utf8').trim()).toBe(first);
    chmodSync(dir, 0o700);
  });

  it('derives a reset key distinct from the access key', () => {
    expect(Buffer.from(keys.passwordReset).equals(Buffer.from(keys.access))).toBe(false);
    expect(Buffer.from(keys.passwordReset)).toEqual(createHmac('sha256', 'unit-test-secret-that-is-long-enough-0123456789').update('deal-radar password reset v1').digest());
  });
});
