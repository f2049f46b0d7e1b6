import { createHash, randomBytes } from 'node:crypto';

/** A random bearer secret (256 bits, URL-safe). Only its hash is stored. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 hex: a stolen database does not yield usable tokens, and lookups stay exact. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
