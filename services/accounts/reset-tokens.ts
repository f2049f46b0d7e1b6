/**
 * Password-reset links `<APP_URL>/reset/<uid>/<token>`, in the manner of Django's
 * PasswordResetTokenGenerator: the token is `<issued-at base36>-<HMAC>` where the HMAC covers the
 * user id, e-mail, current password hash and issue time. A password change therefore kills every
 * outstanding token; expiry comes from the issue time; single use is enforced by the caller
 * recording spent tokens.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type ResetSubject = { id: number; email: string; passwordHash: string | null };

export function encodeUid(userId: number): string {
  return Buffer.from(String(userId), 'utf8').toString('base64url');
}

export function decodeUid(uid: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(uid)) return null;
  const text = Buffer.from(uid, 'base64url').toString('utf8');
  if (!/^[1-9]\d{0,9}$/.test(text)) return null;
  const id = Number(text);
  return id <= 2_147_483_647 ? id : null;
}

function signature(key: Uint8Array, subject: ResetSubject, issuedAtSeconds: number): string {
  return createHmac('sha256', key)
    .update(`${subject.id}|${subject.email.toLowerCase()}|${subject.passwordHash ?? ''}|${issuedAtSeconds}`)
    .digest('base64url');
}

export function makeResetToken(key: Uint8Array, subject: ResetSubject, now = Date.now()): string {
  const issuedAt = Math.floor(now / 1000);
  return `${issuedAt.toString(36)}-${signature(key, subject, issuedAt)}`;
}

export type ResetTokenCheck = 'valid' | 'invalid' | 'expired';

export function checkResetToken(key: Uint8Array, subject: ResetSubject, token: string, ttlSeconds: number, now = Date.now()): ResetTokenCheck {
  const match = /^([0-9a-z]{1,10})-([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return 'invalid';
  const issuedAt = parseInt(match[1]!, 36);
  const expected = Buffer.from(signature(key, subject, issuedAt));
  const given = Buffer.from(match[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
  const ageSeconds = Math.floor(now / 1000) - issuedAt;
  // A token "from the future" is not one we issued (the clock cannot have gone back that far).
  if (ageSeconds < -300) return 'invalid';
  return ageSeconds > ttlSeconds ? 'expired' : 'valid';
}
