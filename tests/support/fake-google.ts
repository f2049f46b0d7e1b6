/**
 * A local stand-in for Google's published signing keys (a JWKS endpoint on 127.0.0.1) and an
 * issuer of ID tokens signed with the matching private key, so the real jose verification runs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

export type FakeGoogle = {
  jwksUrl: string;
  clientId: string;
  /** Signs an ID token; `overrides` replace any claim, `key: 'foreign'` signs with a key not published. */
  idToken(claims?: Partial<JWTPayload & { email: string; email_verified: boolean; given_name: string; family_name: string }>, opts?: { key?: 'published' | 'foreign'; expiresIn?: string | number }): Promise<string>;
  requests: number;
  close(): Promise<void>;
};

export async function startFakeGoogle(clientId = 'deal-radar-test.apps.googleusercontent.com'): Promise<FakeGoogle> {
  const published = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(published.publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    if (req.url === '/oauth2/v3/certs') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    jwksUrl: `http://127.0.0.1:${port}/oauth2/v3/certs`,
    clientId,
    get requests() {
      return state.requests;
    },
    async idToken(claims = {}, opts = {}) {
      const key: CryptoKey = opts.key === 'foreign' ? foreign.privateKey : published.privateKey;
      return new SignJWT({
        iss: 'https://accounts.google.com',
        aud: clientId,
        sub: '110169484474386276334',
        email: 'gina@example.com',
        email_verified: true,
        given_name: 'Gina',
        family_name: 'Lopez',
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1', typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime(opts.expiresIn ?? '1h')
        .sign(key);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
