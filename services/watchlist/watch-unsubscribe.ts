/**
 * The link in every watchlist message that stops messages for that watched lot without signing
 * in (RFC 8058 one-click by POST; the body's link opens a confirm page): the watch id and an HMAC
 * of it under a key derived from the product's signing secret, for a purpose of its own so an
 * alert's token is never a watch's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { loadOrCreateSecret } from '../accounts/signing-keys.js';
import type { Config } from '../shared/config.js';

const PURPOSE = 'deal-radar watch unsubscribe v1';

export function watchUnsubscribeKey(secret: string): Buffer {
  return createHmac('sha256', secret).update(PURPOSE).digest();
}

function mac(key: Buffer, watchId: number): Buffer {
  return createHmac('sha256', key).update(`watch:${watchId}`).digest().subarray(0, 18);
}

export function signWatchToken(key: Buffer, watchId: number): string {
  return `${watchId.toString(36)}.${mac(key, watchId).toString('base64url')}`;
}

/** The watch id the token was made for, or null for a malformed or forged token. */
export function verifyWatchToken(key: Buffer, token: string): number | null {
  const match = /^([0-9a-z]{1,10})\.([A-Za-z0-9_-]{24})$/.exec(token);
  if (!match) return null;
  const watchId = parseInt(match[1]!, 36);
  if (!Number.isSafeInteger(watchId) || watchId <= 0 || watchId > 2_147_483_647) return null;
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = mac(key, watchId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? watchId : null;
}

export function watchUnsubscribeUrl(appUrl: string, key: Buffer, watchId: number): string {
  return `${appUrl}/api/watchlist/unsubscribe/?token=${encodeURIComponent(signWatchToken(key, watchId))}`;
}

/** The signing key of watchlist unsubscribe links (derived from the product's secret, as tokens are). */
export function watchLinkKey(config: Pick<Config, 'JWT_SECRET' | 'DATA_DIR'>): Buffer {
  return watchUnsubscribeKey(config.JWT_SECRET ?? loadOrCreateSecret(config.DATA_DIR));
}
