/**
 * SQL for sign-in sessions and their rotating refresh tokens (stored as SHA-256 hashes), and for
 * spent password-reset tokens.
 */
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { authSessions, passwordResetTokenUses, refreshTokens, users } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';

export type SessionMethod = 'password' | 'register' | 'google';
export type RevokeReason = 'logout' | 'refresh_reuse' | 'password_change' | 'password_reset';

export async function createSession(db: DbOrTx, userId: number, method: SessionMethod): Promise<string> {
  const [row] = await db.insert(authSessions).values({ userId, method }).returning({ id: authSessions.id });
  return row!.id;
}

export async function addRefreshToken(db: DbOrTx, sessionId: string, tokenHash: string, expiresAt: Date): Promise<void> {
  await db.insert(refreshTokens).values({ sessionId, tokenHash, expiresAt });
}

export type RefreshOutcome =
  | { kind: 'rotated'; sessionId: string; userId: number }
  | { kind: 'reused'; sessionId: string }
  | { kind: 'invalid' };

/**
 * Spends a refresh token atomically: only one caller can exchange it. A token already spent is
 * reuse (someone else holds a copy): the caller revokes its session.
 */
export async function spendRefreshToken(db: DbOrTx, tokenHash: string): Promise<RefreshOutcome> {
  const spent = await db.execute<{ session_id: string; user_id: number }>(sql`
    UPDATE refresh_tokens rt SET used_at = now()
    FROM auth_sessions s JOIN users u ON u.id = s.user_id
    WHERE rt.token_hash = ${tokenHash} AND rt.used_at IS NULL AND rt.expires_at > now()
      AND s.id = rt.session_id AND s.revoked_at IS NULL AND u.is_active
    RETURNING rt.session_id, s.user_id`);
  const row = spent[0];
  if (row) {
    await db.update(authSessions).set({ lastRefreshedAt: sql`now()` }).where(eq(authSessions.id, row.session_id));
    return { kind: 'rotated', sessionId: row.session_id, userId: row.user_id };
  }
  const [known] = await db
    .select({ sessionId: refreshTokens.sessionId, usedAt: refreshTokens.usedAt })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, tokenHash));
  if (known?.usedAt) return { kind: 'reused', sessionId: known.sessionId };
  return { kind: 'invalid' };
}

/** The session a refresh token belongs to (spent or not), for logout. */
export async function findSessionByRefreshToken(db: DbOrTx, tokenHash: string): Promise<string | undefined> {
  const [row] = await db.select({ sessionId: refreshTokens.sessionId }).from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
  return row?.sessionId;
}

export async function revokeSession(db: DbOrTx, sessionId: string, reason: RevokeReason): Promise<void> {
  await db
    .update(authSessions)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(and(eq(authSessions.id, sessionId), isNull(authSessions.revokedAt)));
}

/** Revokes every live session of the user, except `keepSessionId` when given. Returns how many. */
export async function revokeUserSessions(db: DbOrTx, userId: number, reason: RevokeReason, keepSessionId?: string): Promise<number> {
  const rows = await db
    .update(authSessions)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(
      and(
        eq(authSessions.userId, userId),
        isNull(authSessions.revokedAt),
        keepSessionId ? ne(authSessions.id, keepSessionId) : undefined,
      ),
    )
    .returning({ id: authSessions.id });
  return rows.length;
}

/** The signed-in user behind an access token, when its session is live and the user active. */
export async function findSessionUser(db: DbOrTx, sessionId: string, userId: number): Promise<{ id: number; email: string } | undefined> {
  const [row] = await db
    .select({ id: users.id, email: users.email })
    .from(authSessions)
    .innerJoin(users, eq(users.id, authSessions.userId))
    .where(and(eq(authSessions.id, sessionId), eq(authSessions.userId, userId), isNull(authSessions.revokedAt), eq(users.isActive, true)));
  return row;
}

/** Records a reset token as spent. False when it already was. */
export async function spendPasswordResetToken(db: DbOrTx, tokenHash: string, userId: number): Promise<boolean> {
  const rows = await db.insert(passwordResetTokenUses).values({ tokenHash, userId }).onConflictDoNothing().returning({ tokenHash: passwordResetTokenUses.tokenHash });
  return rows.length > 0;
}

/** Housekeeping: expired refresh tokens of any session, and sessions revoked long ago. */
export async function pruneExpiredTokens(db: DbOrTx, olderThanDays = 30): Promise<void> {
  await db.delete(refreshTokens).where(sql`${refreshTokens.expiresAt} < now() - make_interval(days => ${olderThanDays})`);
  await db.delete(authSessions).where(sql`${authSessions.revokedAt} < now() - make_interval(days => ${olderThanDays})`);
}
