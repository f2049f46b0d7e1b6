/**
 * Verifies a Google ID token against Google's published keys (GOOGLE_JWKS_URL; tests serve a
 * local key set) for our client id (GOOGLE_CLIENT_ID).
 */
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';

export type GoogleIdentity = {
  sub: string;
  email: string;
  emailVerified: boolean;
  givenName: string;
  familyName: string;
};

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** Thrown when Google's keys cannot be fetched: the caller answers 503, not "invalid token". */
export class GoogleKeysUnavailableError extends Error {}

/** The identity in a valid token, or null when the token is not a valid Google ID token for us. */
export async function verifyGoogleIdToken(idToken: string, opts: { jwksUrl: string; clientId: string }): Promise<GoogleIdentity | null> {
  if (idToken.length > 8192) return null;
  let keySet = keySets.get(opts.jwksUrl);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(opts.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 });
    keySets.set(opts.jwksUrl, keySet);
  }
  try {
    const { payload } = await jwtVerify(idToken, keySet, {
      algorithms: ['RS256'],
      issuer: ['https://accounts.google.com', 'accounts.google.com'],
      audience: opts.clientId,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') return null;
    return {
      sub: payload.sub,
      email: payload.email,
      emailVerified: payload.email_verified === true || payload.email_verified === 'true',
      givenName: typeof payload.given_name === 'string' ? payload.given_name : '',
      familyName: typeof payload.family_name === 'string' ? payload.family_name : '',
    };
  } catch (err) {
    if (err instanceof errors.JWKSTimeout || (err instanceof Error && !(err instanceof errors.JOSEError))) {
      throw new GoogleKeysUnavailableError(`Google's signing keys could not be fetched: ${err.message}`);
    }
    return null;
  }
}
