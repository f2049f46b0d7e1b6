/**
 * The link in every alert e-mail that turns that alert off without signing in: the alert id and
 * an HMAC of it under a key derived from the product's signing secret (so no one can forge a link
 * for someone else's alert). It stays valid: turning an alert off twice is harmless.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const PURPOSE = 'deal-radar alert unsubscribe v1';

export function unsubscribeKey(secret: string): Buffer {
  return createHmac('sha256', secret).update(PURPOSE).digest();
}

function mac(key: Buffer, alertId: number): Buffer {
  return createHmac('sha256', key).update(`alert:${alertId}`).digest().subarray(0, 18);
}

export function signUnsubscribeToken(key: Buffer, alertId: number): string {
  return `${alertId.toString(36)}.${mac(key, alertId).toString('base64url')}`;
}

/** The alert id the token was made for, or null for a malformed or forged token. */
export function verifyUnsubscribeToken(key: Buffer, token: string): number | null {
  const match = /^([0-9a-z]{1,10})\.([A-Za-z0-9_-]{24})$/.exec(token);
  if (!match) return null;
  const alertId = parseInt(match[1]!, 36);
  if (!Number.isSafeInteger(alertId) || alertId <= 0 || alertId > 2_147_483_647) return null;
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = mac(key, alertId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? alertId : null;
}

export function unsubscribeUrl(appUrl: string, key: Buffer, alertId: number): string {
  return `${appUrl}/api/alerts/unsubscribe/?token=${encodeURIComponent(signUnsubscribeToken(key, alertId))}`;
}

/**
 * RFC 8058 one-click unsubscribe: mail clients show an unsubscribe button and POST
 * `List-Unsubscribe=One-Click` to this URL (the same one the body's link opens as a confirm page).
 */
export function listUnsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
