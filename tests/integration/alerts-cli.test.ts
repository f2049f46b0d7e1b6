/** `npm run cli -- alerts`: active alerts by plan and frequency, last 24 h of notifications by status. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertsCommand } from '../../scripts/cli/alerts-command.js';
import { createTestContext, type TestContext } from '../support/context.js';

describe('cli alerts', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('counts active alerts per plan (billing’s rule) and frequency, and recent notifications per status', async () => {
    const { sql } = ctx.database;
    const users = await sql<Array<{ id: number }>>`
      INSERT INTO users (email, first_name, last_name) VALUES ('free@example.com', 'F', 'U'), ('pro@example.com', 'P', 'U'), ('lapsed@example.com', 'L', 'U') RETURNING id`;
    const [free, pro, lapsed] = users.map((u) => u.id);
    await sql`INSERT INTO subscriptions (user_id, stripe_subscription_id, stripe_customer_id, status, current_period_end)
              VALUES (${pro!}, 'sub_live', 'cus_1', 'active', now() + interval '20 days'),
                     (${lapsed!}, 'sub_old', 'cus_2', 'canceled', now() - interval '20 days')`;
    await sql`INSERT INTO alerts (user_id, category_id, frequency, is_active) VALUES
              (${free!}, 1, 'instant', true), (${free!}, 2, 'instant', true), (${free!}, 3, 'daily', false),
              (${pro!}, 1, 'instant', true), (${pro!}, 2, 'daily', true), (${lapsed!}, 1, 'daily', true)`;
    await sql`INSERT INTO alert_notifications (alert_id, user_id, listing_id, event, trigger, channel, frequency, status, created_at) VALUES
              (1, ${free!}, 1, 'match', 'scored', 'email', 'instant', 'sent', now()),
              (2, ${free!}, 1, 'match', 'scored', 'email', 'instant', 'sent', now()),
              (4, ${pro!}, 1, 'match', 'scored', 'email', 'instant', 'failed', now()),
              (4, ${pro!}, 2, 'match', 'scored', 'email', 'instant', 'sent', now() - interval '2 days')`;

    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      await alertsCommand.run(ctx, []);
    } finally {
      spy.mockRestore();
    }
    const out = printed.join('');
    const lines = out.split('\n').map((l) => l.trim().split(/\s+/).join(' '));
    // The free user's inactive alert, and the lapsed subscriber's alert counted as free.
    expect(lines.slice(0, 6)).toEqual(['Active alerts', 'plan frequency alerts users', 'free daily 1 1', 'free instant 2 1', 'pro daily 1 1', 'pro instant 1 1']);
    // The notification of two days ago is not counted.
    expect(lines.slice(7, 11)).toEqual(['Notifications created in the last 24 h', 'status frequency notifications', 'failed instant 1', 'sent instant 2']);
  });
});
