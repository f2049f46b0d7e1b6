/**
 * Who is calling: bearer access tokens for every feature's routes.
 *
 * Use in a route plugin (features get `ctx` in their plugin factory):
 *
 *   import { requireUser, optionalUser, signedInUser } from '../plugins/auth.js';
 *
 *   app.get('/api/alerts/', { preHandler: requireUser(ctx), schema: { security: [{ bearer: [] }], … } },
 *     async (request) => listAlerts(signedInUser(request).id));
 *
 *   app.post('/api/events/', { preHandler: optionalUser(ctx) }, async (request) => {
 *     const userId = request.user?.id; // undefined when anonymous
 *   });
 *
 * `requireUser` answers 401 `{"detail": "Authentication credentials were not provided."}` without
 * a token and `{"detail": "Given token not valid for any token type"}` for a bad, expired or
 * revoked one (the spec's client then refreshes and retries once). `optionalUser` never refuses:
 * a missing or bad token means anonymous.
 */
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { accountsFor, type AuthUser } from '../../accounts/accounts-service.js';
import type { AppContext } from '../../shared/context.js';
import { HttpError } from '../../shared/errors.js';

export type { AuthUser };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `requireUser` (always) or `optionalUser` (when signed in). */
    user?: AuthUser;
  }
}

export const NO_CREDENTIALS = 'Authentication credentials were not provided.';
export const INVALID_TOKEN = 'Given token not valid for any token type';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="api"' };

/** The bearer token of the request: undefined when absent, null when the header is malformed. */
function bearerToken(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** preHandler: the route needs a signed-in user; sets `request.user = { id, email, sessionId }`. */
export function requireUser(ctx: AppContext): preHandlerAsyncHookHandler {
  const accounts = accountsFor(ctx);
  return async function requireUserHook(request: FastifyRequest, _reply: FastifyReply) {
    const token = bearerToken(request);
    if (token === undefined) throw new HttpError(401, NO_CREDENTIALS, CHALLENGE);
    const user = token ? await accounts.authenticate(token) : null;
    if (!user) throw new HttpError(401, INVALID_TOKEN, CHALLENGE);
    request.user = user;
  };
}

/** preHandler: sets `request.user` when a valid token is sent; anonymous otherwise. */
export function optionalUser(ctx: AppContext): preHandlerAsyncHookHandler {
  const accounts = accountsFor(ctx);
  return async function optionalUserHook(request: FastifyRequest, _reply: FastifyReply) {
    const token = bearerToken(request);
    if (!token) return;
    const user = await accounts.authenticate(token);
    if (user) request.user = user;
  };
}

/** The user set by `requireUser`; throws 401 if the route forgot the preHandler. */
export function signedInUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw new HttpError(401, NO_CREDENTIALS, CHALLENGE);
  return request.user;
}
