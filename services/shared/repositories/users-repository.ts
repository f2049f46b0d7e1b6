/** SQL for users. E-mail lookups are case-insensitive (the unique index is on lower(email)). */
import { eq, sql } from 'drizzle-orm';
import { users } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';

export type UserRow = typeof users.$inferSelect;

export type NewUser = {
  email: string;
  firstName: string;
  lastName: string;
  phone?: string;
  city?: string;
  address?: string;
  passwordHash: string | null;
  googleSub?: string | null;
};

export type ProfileFields = Pick<UserRow, 'email' | 'firstName' | 'lastName' | 'phone' | 'city' | 'address'> & { zip?: string | null };

/** Sets where the buyer is (a ZIP code the caller checked), or clears it. */
export async function setUserZip(db: DbOrTx, id: number, zip: string | null): Promise<void> {
  await db.update(users).set({ zip, updatedAt: sql`now()` }).where(eq(users.id, id));
}

export async function findUserById(db: DbOrTx, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
  return row;
}

export async function findUserByGoogleSub(db: DbOrTx, googleSub: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.googleSub, googleSub));
  return row;
}

/** The new user, or undefined when the e-mail (or Google account) is already registered. */
export async function insertUser(db: DbOrTx, user: NewUser): Promise<UserRow | undefined> {
  const [row] = await db.insert(users).values(user).onConflictDoNothing().returning();
  return row;
}

/** The updated user, or 'email_taken' when another account has the new e-mail. */
export async function updateProfile(db: DbOrTx, id: number, fields: ProfileFields): Promise<UserRow | 'email_taken' | undefined> {
  try {
    const [row] = await db
      .update(users)
      .set({ ...fields, updatedAt: sql`now()` })
      .where(eq(users.id, id))
      .returning();
    return row;
  } catch (err) {
    if (isUniqueViolation(err)) return 'email_taken';
    throw err;
  }
}

export async function setPasswordHash(db: DbOrTx, id: number, passwordHash: string): Promise<void> {
  await db
    .update(users)
    .set({ passwordHash, passwordChangedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(users.id, id));
}

export async function linkGoogleAccount(db: DbOrTx, id: number, googleSub: string): Promise<void> {
  await db.update(users).set({ googleSub, updatedAt: sql`now()` }).where(eq(users.id, id));
}

export async function recordLogin(db: DbOrTx, id: number): Promise<void> {
  await db.update(users).set({ lastLoginAt: sql`now()` }).where(eq(users.id, id));
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return code === '23505';
}
