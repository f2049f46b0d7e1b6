/**
 * `/api/auth/*`: the spec's §7 account calls with its exact payload and response names.
 * Handlers are thin: the work is in services/accounts. A body field a route does not know is a
 * 400 naming it (plugins/strict-input.ts); every string is bounded and NUL-free, so hostile
 * input is a 400 or is stored verbatim, never a 500. Login, register and reset are rate-limited
 * per IP here and per e-mail address in the accounts service.
 */
import { lookupZip } from '../../shared/geo/gazetteer.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountsFor, MESSAGES } from '../../accounts/accounts-service.js';
import { MAX_PASSWORD_LENGTH } from '../../accounts/password-rules.js';
import type { AppContext } from '../../shared/context.js';
import { serviceUnavailable, ValidationError } from '../../shared/errors.js';
import { requireUser, signedInUser } from '../plugins/auth.js';

const REQUIRED = 'This field is required.';

function typeError(expected: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined || issue.input === null ? REQUIRED : `Not a valid ${expected}.`);
}

const noNul = (value: string) => !value.includes('\u0000');
const NUL_MESSAGE = 'Null characters are not allowed.';

/** A required, trimmed, bounded text field. */
function requiredText(max: number) {
  return z
    .string({ error: typeError('string') })
    .trim()
    .min(1, 'This field may not be blank.')
    .max(max, `Ensure this field has no more than ${max} characters.`)
    .refine(noNul, NUL_MESSAGE);
}

/** An optional text field: absent, null or blank are all stored as ''. */
function optionalText(max: number) {
  return z
    .string({ error: typeError('string') })
    .trim()
    .max(max, `Ensure this field has no more than ${max} characters.`)
    .refine(noNul, NUL_MESSAGE)
    .nullish();
}

const email = z
  .string({ error: typeError('string') })
  .trim()
  .min(1, 'This field may not be blank.')
  .max(254, 'Ensure this field has no more than 254 characters.')
  .pipe(z.email({ error: 'Enter a valid email address.' }));

/** Passwords are not trimmed: every character counts. */
const password = z
  .string({ error: typeError('string') })
  .min(1, 'This field may not be blank.')
  .max(MAX_PASSWORD_LENGTH, `Ensure this field has no more than ${MAX_PASSWORD_LENGTH} characters.`)
  .refine(noNul, NUL_MESSAGE);

const opaqueToken = z
  .string({ error: typeError('string') })
  .trim()
  .min(1, 'This field may not be blank.')
  .max(4096, 'Ensure this field has no more than 4096 characters.');

const profile = z.object({
  id: z.number().int(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  date_joined: z.string(),
  phone: z.string(),
  city: z.string(),
  address: z.string(),
  zip: z.string().describe("The buyer's US ZIP code, '' when none (issue 30)."),
});

const signInResponse = z.object({ access_token: z.string(), refresh_token: z.string(), user: profile });
const detailResponse = z.object({ detail: z.string() });

const registerBody = z.object({
  email,
  password1: password,
  password2: password,
  first_name: requiredText(150),
  last_name: requiredText(150),
  phone: optionalText(32),
  city: optionalText(255),
  address: optionalText(500),
  terms_accepted: z.boolean({ error: typeError('boolean') }).nullish(),
});

const profileBody = z.object({
  email,
  first_name: requiredText(150),
  last_name: requiredText(150),
  phone: optionalText(32),
  city: optionalText(255),
  address: optionalText(500),
  zip: z
    .string({ error: typeError('string') })
    .trim()
    .refine((v) => v === '' || lookupZip(v) !== null, 'Enter a US ZIP code (5 digits).')
    .nullish()
    .describe("The buyer's US ZIP code; '' or null clears it; omitted keeps it."),
});

const bearer = [{ bearer: [] }];

/** Account payloads are small: far below the API-wide limit, with room for the bounded fields. */
export const AUTH_BODY_LIMIT_BYTES = 64 * 1024;

export function authRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const accounts = accountsFor(ctx);
    const ipLimit = { max: ctx.config.AUTH_IP_RATE_LIMIT, timeWindow: 60_000 };
    const auth = requireUser(ctx);
    app.addHook('onClose', async () => accounts.drain());

    app.post(
      '/api/auth/register/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        config: { rateLimit: ipLimit },
        schema: { tags: ['auth'], summary: 'Create an account and sign in', body: registerBody, response: { 201: signInResponse } },
      },
      async (request, reply) => reply.status(201).send(await accounts.register(request.body)),
    );

    app.post(
      '/api/auth/login/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        config: { rateLimit: ipLimit },
        schema: { tags: ['auth'], summary: 'Sign in with e-mail and password', body: z.object({ email, password }), response: { 200: signInResponse } },
      },
      async (request) => accounts.login(request.body.email, request.body.password),
    );

    app.post(
      '/api/auth/google/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        config: { rateLimit: ipLimit },
        schema: {
          tags: ['auth'],
          summary: 'Sign in with a Google ID token (`id_token`, or `credential` as Google Identity Services names it)',
          body: z.object({
            id_token: opaqueToken.optional(),
            credential: opaqueToken.optional(),
            // The rest of Google Identity Services' CredentialResponse, so a client may post it as is.
            select_by: z.string().max(64).optional().describe("Google Identity Services' CredentialResponse field; ignored."),
            clientId: z.string().max(256).optional().describe("Google Identity Services' CredentialResponse field; ignored."),
          }),
          response: { 200: signInResponse },
        },
      },
      async (request) => {
        // Not configured is said first, whatever the body: the client learns Google sign-in is off.
        if (!ctx.config.GOOGLE_CLIENT_ID) throw serviceUnavailable(MESSAGES.googleNotConfigured);
        const token = request.body.id_token ?? request.body.credential;
        if (!token) throw ValidationError.field('id_token', REQUIRED);
        return accounts.googleSignIn(token);
      },
    );

    app.post(
      '/api/auth/logout/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        schema: { tags: ['auth'], summary: 'Revoke the session of a refresh token', body: z.object({ refresh_token: opaqueToken }), response: { 200: detailResponse } },
      },
      async (request) => {
        await accounts.logout(request.body.refresh_token);
        return { detail: MESSAGES.loggedOut };
      },
    );

    app.post(
      '/api/auth/token/refresh/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        schema: {
          tags: ['auth'],
          summary: 'Exchange a refresh token for a new pair (the old one dies)',
          body: z.object({ refresh: opaqueToken }),
          response: { 200: z.object({ access: z.string(), refresh: z.string() }) },
        },
      },
      async (request) => accounts.refresh(request.body.refresh),
    );

    app.get(
      '/api/auth/profile/',
      { preHandler: auth, schema: { tags: ['auth'], summary: 'The signed-in user', security: bearer, response: { 200: profile } } },
      async (request) => accounts.profile(signedInUser(request).id),
    );

    app.put(
      '/api/auth/profile/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        preHandler: auth,
        schema: { tags: ['auth'], summary: 'Update the profile', security: bearer, body: profileBody, response: { 200: profile } },
      },
      async (request) => {
        const body = request.body;
        return accounts.updateProfile(signedInUser(request).id, {
          email: body.email,
          firstName: body.first_name,
          lastName: body.last_name,
          phone: body.phone ?? '',
          city: body.city ?? '',
          address: body.address ?? '',
          // omitted: kept (clients that predate it send none)
          ...(body.zip === undefined ? {} : { zip: body.zip ? body.zip.slice(0, 5) : null }),
        });
      },
    );

    app.post(
      '/api/auth/password/change/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        preHandler: auth,
        schema: {
          tags: ['auth'],
          summary: 'Change the password; signs out every other session',
          security: bearer,
          body: z.object({ old_password: password, new_password1: password, new_password2: password }),
          response: { 200: detailResponse },
        },
      },
      async (request) => {
        await accounts.changePassword(signedInUser(request), request.body);
        return { detail: MESSAGES.passwordSaved };
      },
    );

    app.post(
      '/api/auth/password/reset/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        config: { rateLimit: ipLimit },
        schema: { tags: ['auth'], summary: 'E-mail a reset link (same answer whether or not the account exists)', body: z.object({ email }), response: { 200: detailResponse } },
      },
      async (request) => {
        await accounts.requestPasswordReset(request.body.email);
        return { detail: MESSAGES.resetSent };
      },
    );

    app.post(
      '/api/auth/password/reset/confirm/',
      {
        bodyLimit: AUTH_BODY_LIMIT_BYTES,
        config: { rateLimit: ipLimit },
        schema: {
          tags: ['auth'],
          summary: 'Set a new password from a reset link',
          body: z.object({
            uid: opaqueToken.pipe(z.string().max(64, 'Ensure this field has no more than 64 characters.')),
            token: opaqueToken.pipe(z.string().max(256, 'Ensure this field has no more than 256 characters.')),
            new_password1: password,
            new_password2: password,
          }),
          response: { 200: detailResponse },
        },
      },
      async (request) => {
        await accounts.confirmPasswordReset(request.body);
        return { detail: MESSAGES.resetDone };
      },
    );
  };
}
