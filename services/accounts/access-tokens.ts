/**
 * Short-lived access JWTs (HS256 via jose). They name the user (`sub`) and the session (`sid`)
 * so a revoked session stops its access tokens too. Verification accepts HS256 only: `alg: none`,
 * other algorithms, a bad signature, a wrong issuer/audience/type or an expired token all fail.
 */
import { jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';

const ISSUER = 'deal-radar';
const AUDIENCE = 'deal-radar-api';
const TOKEN_TYPE = 'access';

export type AccessClaims = { userId: number; sessionId: string };

export async function signAccessToken(key: Uint8Array, claims: AccessClaims, ttlSeconds: number, now = Date.now()): Promise<string> {
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT({ token_type: TOKEN_TYPE, sid: claims.sessionId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(claims.userId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .setJti(randomUUID())
    .sign(key);
}

/** The claims of a valid access token, or null for anything else. */
export async function verifyAccessToken(key: Uint8Array, token: string, now = Date.now()): Promise<AccessClaims | null> {
  if (token.length > 4096) return null;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: new Date(now),
      requiredClaims: ['sub', 'exp', 'iat', 'sid'],
    });
    const userId = Number(payload.sub);
    if (payload.token_type !== TOKEN_TYPE || !Number.isSafeInteger(userId) || userId <= 0 || typeof payload.sid !== 'string') return null;
    return { userId, sessionId: payload.sid };
  } catch {
    return null;
  }
}
