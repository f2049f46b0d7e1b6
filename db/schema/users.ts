import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** Buyers. E-mail is unique case-insensitively; optional profile fields are stored as '' when empty. */
export const users = pgTable(
  'users',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    email: text('email').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    phone: text('phone').notNull().default(''),
    /** Where the buyer is (issue 30): a US ZIP code, or null. */
    zip: text('zip'),
    city: text('city').notNull().default(''),
    address: text('address').notNull().default(''),
    /** argon2id hash; null for accounts that only sign in with Google. */
    passwordHash: text('password_hash'),
    googleSub: text('google_sub'),
    isActive: boolean('is_active').notNull().default(true),
    dateJoined: timestamp('date_joined', { withTimezone: true }).notNull().defaultNow(),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`),
    uniqueIndex('users_google_sub_key').on(t.googleSub),
    index('users_phone_idx').on(t.phone),
  ],
);
