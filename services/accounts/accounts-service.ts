/**
 * Accounts: registration, sign-in (password or Google), sessions with rotating refresh tokens,
 * profile, password change and reset. Routes stay thin and call this; SQL stays in the
 * repositories; rules, tokens and messages are the pure modules beside this file.
 */
import type { AppContext } from '../shared/context.js';
import { HttpError, serviceUnavailable, tooManyRequests, ValidationError } from '../shared/errors.js';
import {
  addRefreshToken,
  createSession,
  findSessionByRefreshToken,
  findSessionUser,
  pruneExpiredTokens,
  revokeSession,
  revokeUserSessions,
  spendPasswordResetToken,
  spendRefreshToken,
  type SessionMethod,
} from '../shared/repositories/auth-sessions-repository.js';
import { clearCounter, hitCounter, peekCounter, pruneCounters } from '../shared/repositories/rate-limits-repository.js';
import {
  findUserByEmail,
  findUserByGoogleSub,
  findUserById,
  insertUser,
  linkGoogleAccount,
  recordLogin,
  setPasswordHash,
  updateProfile,
  type ProfileFields,
  type UserRow,
} from '../shared/repositories/users-repository.js';
import { queueEmail } from '../notifier/queue-email.js';
import { signAccessToken, verifyAccessToken } from './access-tokens.js';
import { passwordResetEmail, passwordResetLink } from './account-emails.js';
import { GoogleKeysUnavailableError, verifyGoogleIdToken } from './google-id-token.js';
import { hashToken, newOpaqueToken } from './opaque-tokens.js';
import { hashPassword, verifyPassword, verifyPasswordOrDummy } from './password-hashing.js';
import { passwordProblems } from './password-rules.js';
import { checkResetToken, decodeUid, encodeUid, makeResetToken } from './reset-tokens.js';
import { resolveSigningKeys, type SigningKeys } from './signing-keys.js';

/** The signed-in user as other features see it (see services/api/plugins/auth.ts). */
export type AuthUser = { id: number; email: string; sessionId: string };

/** The spec's user profile. */
export type Profile = {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  date_joined: string;
  phone: string;
  city: string;
  address: string;
  /** The buyer's US ZIP code ('' when none): distances and prices delivered are measured from it. */
  zip: string;
};

export type SignInResult = { access_token: string; refresh_token: string; user: Profile };

export type RegisterInput = {
  email: string;
  password1: string;
  password2: string;
  first_name: string;
  last_name: string;
  phone?: string | null;
  city?: string | null;
  address?: string | null;
  terms_accepted?: boolean | null;
};

export const MESSAGES = {
  loginFailed: 'Unable to log in with provided credentials.',
  emailTaken: 'A user is already registered with this e-mail address.',
  passwordsDiffer: "The two password fields didn't match.",
  termsRequired: 'You must accept the terms and conditions.',
  invalidRefresh: 'Token is invalid or expired',
  loggedOut: 'Successfully logged out.',
  resetSent: 'Password reset e-mail has been sent.',
  resetDone: 'Password has been reset with the new password.',
  resetLinkInvalid: 'This password reset link is invalid or has expired.',
  passwordSaved: 'New password has been saved.',
  oldPasswordWrong: 'Your old password was entered incorrectly. Please enter it again.',
  accountDisabled: 'User account is disabled.',
  googleNotConfigured: 'Google sign-in is not configured.',
  googleUnavailable: 'Google sign-in is unavailable right now. Please try again later.',
  googleInvalid: 'Invalid Google ID token.',
  googleUnverified: 'This Google account has no verified e-mail address.',
  tooManyAttempts: 'Too many attempts for this account.',
} as const;

type LimitedAction = 'login' | 'register' | 'reset';

export function toProfile(user: UserRow): Profile {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    date_joined: user.dateJoined.toISOString(),
    phone: user.phone,
    city: user.city,
    address: user.address,
    zip: user.zip ?? '',
  };
}

export class AccountsService {
  private readonly keys: SigningKeys;
  /** Reset e-mails being queued after the response (see requestPasswordReset). */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly ctx: AppContext) {
    this.keys = resolveSigningKeys(ctx.config);
  }

  private get db() {
    return this.ctx.database.db;
  }

  // --- sign-in -------------------------------------------------------------------------------

  async register(input: RegisterInput): Promise<SignInResult> {
    await this.countAttempt('register', input.email);
    const fields: Record<string, string[]> = {};
    const problems = passwordProblems(input.password1, { email: input.email, firstName: input.first_name, lastName: input.last_name });
    if (problems.length) fields.password1 = problems;
    if (input.password1 !== input.password2) fields.non_field_errors = [MESSAGES.passwordsDiffer];
    if (input.terms_accepted !== true) fields.terms_accepted = [MESSAGES.termsRequired];
    if (await findUserByEmail(this.db, input.email)) fields.email = [MESSAGES.emailTaken];
    if (Object.keys(fields).length) throw new ValidationError(fields);

    const user = await insertUser(this.db, {
      email: input.email,
      firstName: input.first_name,
      lastName: input.last_name,
      phone: input.phone ?? '',
      city: input.city ?? '',
      address: input.address ?? '',
      passwordHash: await hashPassword(input.password1),
    });
    // Two registrations racing for one address: the unique index decides.
    if (!user) throw ValidationError.field('email', MESSAGES.emailTaken);
    return this.startSession(user, 'register');
  }

  async login(email: string, password: string): Promise<SignInResult> {
    await this.assertNotLimited('login', email);
    const user = await findUserByEmail(this.db, email);
    // Unknown e-mail, password-less (Google) account or wrong password: one answer, one cost.
    const ok = await verifyPasswordOrDummy(user?.passwordHash, password);
    if (!user || !ok) {
      await this.countAttempt('login', email, { throwWhenOver: false });
      throw ValidationError.nonField(MESSAGES.loginFailed);
    }
    if (!user.isActive) throw ValidationError.nonField(MESSAGES.accountDisabled);
    await clearCounter(this.db, limitKey('login', email));
    return this.startSession(user, 'password');
  }

  async googleSignIn(idToken: string): Promise<SignInResult> {
    const { GOOGLE_CLIENT_ID: clientId, GOOGLE_JWKS_URL: jwksUrl } = this.ctx.config;
    if (!clientId) throw serviceUnavailable(MESSAGES.googleNotConfigured);
    let identity;
    try {
      identity = await verifyGoogleIdToken(idToken, { jwksUrl, clientId });
    } catch (err) {
      if (err instanceof GoogleKeysUnavailableError) {
        this.ctx.logger.warn({ err: err.message }, 'Google keys unavailable');
        throw serviceUnavailable(MESSAGES.googleUnavailable);
      }
      throw err;
    }
    if (!identity) throw ValidationError.field('id_token', MESSAGES.googleInvalid);
    if (!identity.emailVerified) throw ValidationError.field('id_token', MESSAGES.googleUnverified);

    let user = await findUserByGoogleSub(this.db, identity.sub);
    if (!user) {
      const byEmail = await findUserByEmail(this.db, identity.email);
      if (byEmail && !byEmail.googleSub) {
        // Google vouches for the address: the same person, now able to sign in either way.
        await linkGoogleAccount(this.db, byEmail.id, identity.sub);
        user = byEmail;
      } else if (byEmail) {
        throw ValidationError.field('id_token', MESSAGES.emailTaken);
      } else {
        user = await insertUser(this.db, {
          email: identity.email.slice(0, 254),
          firstName: identity.givenName.slice(0, 150),
          lastName: identity.familyName.slice(0, 150),
          passwordHash: null,
          googleSub: identity.sub,
        });
        if (!user) throw ValidationError.field('id_token', MESSAGES.emailTaken);
      }
    }
    if (!user.isActive) throw ValidationError.nonField(MESSAGES.accountDisabled);
    return this.startSession(user, 'google');
  }

  private async startSession(user: UserRow, method: SessionMethod): Promise<SignInResult> {
    const sessionId = await createSession(this.db, user.id, method);
    // Housekeeping now and then, off the request path: long-expired tokens and old revoked sessions.
    if (Math.random() < 0.01) {
      void pruneExpiredTokens(this.db).catch((err: unknown) => this.ctx.logger.warn({ err }, 'pruning expired tokens failed'));
    }
    const refresh = await this.issueRefreshToken(sessionId);
    const access = await this.issueAccessToken(user.id, sessionId);
    await recordLogin(this.db, user.id);
    return { access_token: access, refresh_token: refresh, user: toProfile(user) };
  }

  private async issueRefreshToken(sessionId: string): Promise<string> {
    const token = newOpaqueToken();
    const expiresAt = new Date(Date.now() + this.ctx.config.REFRESH_TOKEN_TTL_SECONDS * 1000);
    await addRefreshToken(this.db, sessionId, hashToken(token), expiresAt);
    return token;
  }

  /** Exposed for tests and tools that need a token for a known session. */
  issueAccessToken(userId: number, sessionId: string, now = Date.now()): Promise<string> {
    return signAccessToken(this.keys.access, { userId, sessionId }, this.ctx.config.ACCESS_TOKEN_TTL_SECONDS, now);
  }

  // --- tokens --------------------------------------------------------------------------------

  /** Rotation: the presented token dies and a new pair is issued. Presenting a dead one ends its session. */
  async refresh(refreshToken: string): Promise<{ access: string; refresh: string }> {
    const outcome = await spendRefreshToken(this.db, hashToken(refreshToken));
    if (outcome.kind === 'reused') {
      // A rotated token came back: a copy leaked. Whoever holds the current one loses it too.
      await revokeSession(this.db, outcome.sessionId, 'refresh_reuse');
      this.ctx.logger.warn({ sessionId: outcome.sessionId }, 'refresh token reused: session revoked');
    }
    if (outcome.kind !== 'rotated') throw new HttpError(401, MESSAGES.invalidRefresh);
    const refresh = await this.issueRefreshToken(outcome.sessionId);
    const access = await this.issueAccessToken(outcome.userId, outcome.sessionId);
    return { access, refresh };
  }

  async logout(refreshToken: string): Promise<void> {
    const sessionId = await findSessionByRefreshToken(this.db, hashToken(refreshToken));
    if (!sessionId) throw new HttpError(401, MESSAGES.invalidRefresh);
    await revokeSession(this.db, sessionId, 'logout');
  }

  /** The user behind a bearer access token, or null when the token or its session is not valid. */
  async authenticate(accessToken: string): Promise<AuthUser | null> {
    const claims = await verifyAccessToken(this.keys.access, accessToken);
    if (!claims) return null;
    const user = await findSessionUser(this.db, claims.sessionId, claims.userId);
    return user ? { id: user.id, email: user.email, sessionId: claims.sessionId } : null;
  }

  // --- profile and passwords -----------------------------------------------------------------

  async profile(userId: number): Promise<Profile> {
    const user = await findUserById(this.db, userId);
    if (!user) throw new HttpError(401, 'User not found');
    return toProfile(user);
  }

  async updateProfile(userId: number, fields: ProfileFields): Promise<Profile> {
    const updated = await updateProfile(this.db, userId, fields);
    if (updated === 'email_taken') throw ValidationError.field('email', MESSAGES.emailTaken);
    if (!updated) throw new HttpError(401, 'User not found');
    return toProfile(updated);
  }

  async changePassword(auth: AuthUser, input: { old_password: string; new_password1: string; new_password2: string }): Promise<void> {
    const user = await findUserById(this.db, auth.id);
    if (!user) throw new HttpError(401, 'User not found');
    if (!user.passwordHash || !(await verifyPassword(user.passwordHash, input.old_password))) {
      throw ValidationError.field('old_password', MESSAGES.oldPasswordWrong);
    }
    this.checkNewPassword(user, input.new_password1, input.new_password2);
    const passwordHash = await hashPassword(input.new_password1);
    await this.db.transaction(async (tx) => {
      await setPasswordHash(tx, user.id, passwordHash);
      // Everyone else signed in as this user is signed out; this session carries on.
      await revokeUserSessions(tx, user.id, 'password_change', auth.sessionId);
    });
  }

  /**
   * Always the same answer, as fast for unknown addresses as for known ones: the lookup is the
   * only work done before answering; the e-mail for a real account is queued just after.
   */
  async requestPasswordReset(email: string): Promise<void> {
    await this.countAttempt('reset', email);
    const user = await findUserByEmail(this.db, email);
    if (!user || !user.isActive) return;
    const work = this.queueResetEmail(user).catch((err: unknown) => {
      this.ctx.logger.error({ err, userId: user.id }, 'could not queue the password-reset e-mail');
    });
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async queueResetEmail(user: UserRow): Promise<void> {
    const token = makeResetToken(this.keys.passwordReset, user);
    const link = passwordResetLink(this.ctx.config.APP_URL, encodeUid(user.id), token);
    const message = passwordResetEmail({
      firstName: user.firstName,
      link,
      ttlHours: Math.round(this.ctx.config.PASSWORD_RESET_TTL_SECONDS / 3600),
    });
    await queueEmail(this.ctx, {
      messageKey: `password-reset:${user.id}:${hashToken(token).slice(0, 24)}`,
      to: user.email,
      kind: 'password_reset',
      ...message,
    });
  }

  async confirmPasswordReset(input: { uid: string; token: string; new_password1: string; new_password2: string }): Promise<void> {
    const userId = decodeUid(input.uid);
    const user = userId ? await findUserById(this.db, userId) : undefined;
    if (!user || !user.isActive) throw ValidationError.field('uid', MESSAGES.resetLinkInvalid);
    const check = checkResetToken(this.keys.passwordReset, user, input.token, this.ctx.config.PASSWORD_RESET_TTL_SECONDS);
    if (check !== 'valid') throw ValidationError.field('token', MESSAGES.resetLinkInvalid);
    this.checkNewPassword(user, input.new_password1, input.new_password2);
    const passwordHash = await hashPassword(input.new_password1);
    await this.db.transaction(async (tx) => {
      if (!(await spendPasswordResetToken(tx, hashToken(input.token), user.id))) {
        throw ValidationError.field('token', MESSAGES.resetLinkInvalid);
      }
      await setPasswordHash(tx, user.id, passwordHash);
      await revokeUserSessions(tx, user.id, 'password_reset');
    });
    // Whoever was guessing this account's password is no longer what blocks its owner.
    await clearCounter(this.db, limitKey('login', user.email));
  }

  private checkNewPassword(user: UserRow, password1: string, password2: string): void {
    const fields: Record<string, string[]> = {};
    const problems = passwordProblems(password1, { email: user.email, firstName: user.firstName, lastName: user.lastName });
    if (problems.length) fields.new_password1 = problems;
    if (password1 !== password2) fields.new_password2 = [MESSAGES.passwordsDiffer];
    if (Object.keys(fields).length) throw new ValidationError(fields);
  }

  // --- per-account limits (PostgreSQL, shared by every API replica) -------------------------

  private async countAttempt(action: LimitedAction, email: string, opts: { throwWhenOver?: boolean } = {}): Promise<void> {
    const { AUTH_ACCOUNT_RATE_LIMIT: max, AUTH_ACCOUNT_RATE_WINDOW_SECONDS: window } = this.ctx.config;
    const state = await hitCounter(this.db, limitKey(action, email), window);
    if (state.hits === 1 && Math.random() < 0.01) void pruneCounters(this.db, 24 * 3600).catch(() => {});
    if (state.hits > max && opts.throwWhenOver !== false) throw limited(state.resetAt);
  }

  private async assertNotLimited(action: LimitedAction, email: string): Promise<void> {
    const { AUTH_ACCOUNT_RATE_LIMIT: max, AUTH_ACCOUNT_RATE_WINDOW_SECONDS: window } = this.ctx.config;
    const state = await peekCounter(this.db, limitKey(action, email), window);
    if (state && state.hits >= max) throw limited(state.resetAt);
  }

  /** Waits for reset e-mails still being queued (graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}

/** Keyed by the address as typed (lower-cased), known account or not: a limit reveals nothing. */
function limitKey(action: LimitedAction, email: string): string {
  return `${action}:${hashToken(email.trim().toLowerCase())}`;
}

function limited(resetAt: Date): HttpError {
  const seconds = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000));
  return tooManyRequests(seconds, MESSAGES.tooManyAttempts);
}

const services = new WeakMap<AppContext, AccountsService>();

/** One AccountsService per context: routes and the auth guard share its keys. */
export function accountsFor(ctx: AppContext): AccountsService {
  let service = services.get(ctx);
  if (!service) {
    service = new AccountsService(ctx);
    services.set(ctx, service);
  }
  return service;
}
