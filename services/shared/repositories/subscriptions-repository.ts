/** SQL for billing: Stripe customers, the subscription mirror and processed webhook events. */
import { and, desc, eq, sql } from 'drizzle-orm';
import { billingCustomers, stripeEvents, subscriptions } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type SubscriptionMirror = Omit<typeof subscriptions.$inferInsert, 'id' | 'createdAt'>;

export async function findCustomerByUser(db: DbOrTx, userId: number): Promise<string | undefined> {
  const [row] = await db.select().from(billingCustomers).where(eq(billingCustomers.userId, userId));
  return row?.stripeCustomerId;
}

export async function findUserByCustomer(db: DbOrTx, stripeCustomerId: string): Promise<number | undefined> {
  const [row] = await db.select().from(billingCustomers).where(eq(billingCustomers.stripeCustomerId, stripeCustomerId));
  return row?.userId;
}

/** Records the user's customer id; the first writer wins and everyone gets that id back. */
export async function saveCustomer(db: DbOrTx, userId: number, stripeCustomerId: string): Promise<string> {
  await db.insert(billingCustomers).values({ userId, stripeCustomerId }).onConflictDoNothing();
  return (await findCustomerByUser(db, userId)) ?? stripeCustomerId;
}

export async function listUserSubscriptions(db: DbOrTx, userId: number): Promise<SubscriptionRow[]> {
  return db.select().from(subscriptions).where(eq(subscriptions.userId, userId)).orderBy(desc(subscriptions.updatedAt));
}

export async function hasEverSubscribed(db: DbOrTx, userId: number): Promise<boolean> {
  const [row] = await db.select({ id: subscriptions.id }).from(subscriptions).where(eq(subscriptions.userId, userId)).limit(1);
  return Boolean(row);
}

export async function upsertSubscription(db: DbOrTx, mirror: SubscriptionMirror): Promise<void> {
  await db
    .insert(subscriptions)
    .values(mirror)
    .onConflictDoUpdate({
      target: subscriptions.stripeSubscriptionId,
      set: { ...mirror, updatedAt: sql`now()` },
    });
}

export async function markPaymentFailed(db: DbOrTx, stripeSubscriptionId: string, at: Date): Promise<void> {
  await db
    .update(subscriptions)
    .set({ lastPaymentFailedAt: at, updatedAt: sql`now()` })
    .where(and(eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId)));
}

/** True when the event id is new (and now recorded); false when it was processed before. */
export async function recordStripeEvent(db: DbOrTx, id: string, type: string): Promise<boolean> {
  const inserted = await db.insert(stripeEvents).values({ id, type }).onConflictDoNothing().returning({ id: stripeEvents.id });
  return inserted.length > 0;
}
