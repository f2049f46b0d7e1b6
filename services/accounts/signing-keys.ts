/**
 * The secret behind access tokens and reset links. JWT_SECRET when set (required in production,
 * see config.ts); otherwise one is generated once and kept in DATA_DIR/jwt-secret (mode 600) so
 * tokens survive restarts and every process on the same DATA_DIR agrees.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type SigningKeys = {
  /** HS256 key for access JWTs. */
  access: Uint8Array;
  /** HMAC key for password-reset tokens: derived, so a reset token is never a valid JWT key. */
  passwordReset: Uint8Array;
};

export const SECRET_FILE_NAME = 'jwt-secret';

export function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, SECRET_FILE_NAME);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    // `wx`: when two processes start together, the first writer wins and the other reads its secret.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
  chmodSync(file, 0o600);
  return secret;
}

export function deriveSigningKeys(secret: string): SigningKeys {
  return {
    access: new TextEncoder().encode(secret),
    passwordReset: createHmac('sha256', secret).update('deal-radar password reset v1').digest(),
  };
}

export function resolveSigningKeys(config: { JWT_SECRET?: string | undefined; DATA_DIR: string }): SigningKeys {
  return deriveSigningKeys(config.JWT_SECRET ?? loadOrCreateSecret(config.DATA_DIR));
}
