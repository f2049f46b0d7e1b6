/**
 * Issue #22 — alerts buyers keep, over the real database, queues, matcher and notifier:
 *   - a free "Excavators, below $500,000, e-mail, instant" alert over many excavator listings of
 *     every deal level gets at most 5 instant e-mails, each a good or excellent deal; the other
 *     good deals roll into the daily digest (best first, at most 20 shown, a link to the rest);
 *     fair, poor and unscored lots are not notified at all;
 *   - "include listings without a score" opts in to unscored lots; "excellent only" narrows;
 *   - one message per listing per alert, again only on a material change (price 10% or more
 *     down, or the deal level up).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { badgeScore } from '../../services/alerts/alert-matching.js';
import { createDigestHandler } from '../../services/matcher/match-listings.js';
import { startMatcher } from '../../services/matcher/index.js';
import { startNotifier } from '../../services/notifier/index.js';
import { listAlertNotifications, matchChangedListings, rollOverBeyondDailyCap } from '../../services/shared/repositories/alerts-repository.js';
import { listMessages } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { waitFor } from '../support/wait.js';

const HOUR = 3_600_000;

describe('alerts buyers keep (issue #22)', () => {
  let ctx: TestContext;
  let app: ApiApp;
  let close: () => Promise<void>;
  let services: ServiceHandle[];
  let source: { id: number; name: string };

  beforeAll(async () => {
    ({ app, ctx, close } = await createTestApp());
    services = [await startMatcher(ctx), await startNotifier(ctx)];
    source = await insertSource(ctx.database.db);
  });
  afterAll(async () => {
    for (const s of services ?? []) await s.stop();
    await close();
  });

  const createAlert = async (user: SignedIn, body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: number; deal_level: string; include_unscored: boolean };
  };

  const excavator = (i: number, dealScore: number | null, price = 40_000 + i * 1_000) => ({
    title: `2014 CAT 320E Excavator lot ${i}`,
    make: 'Caterpillar',
    model: '320E',
    categoryId: 1,
    priceUsd: price,
    price,
    state: 'TX',
    condition: 'Good' as const,
    dealScore,
    fairValue: dealScore === null ? null : 80_000,
    valueLow: dealScore === null ? null : 60_000,
    valueHigh: dealScore === null ? null : 100_000,
    auctionEndAt: new Date(Date.now() + 30 * HOUR),
  });

  it('a free Excavators alert: at most 5 instant e-mails, each a good or excellent deal; the rest in the digest', async () => {
    const buyer = await registerUser(app);
    const alert = await createAlert(buyer, { equipment_type: 'Excavators', price_max: 500_000, delivery_method: 'email', frequency: 'instant' });
    expect(alert).toMatchObject({ deal_level: 'good', include_unscored: false });

    // 60 excavators as a busy site lists them: unscored, poor, fair, good and excellent.
    const scores = [null, 120, 380, 450, 520, 590, 591, 640, 700, 760, 799, 810, 880, 950];
    const lots = await insertListings(
      ctx.database.db,
      source,
      Array.from({ length: 60 }, (_, i) => excavator(i, scores[i % scores.length]!)),
    );
    const deals = lots.filter((l) => l.dealScore !== null && badgeScore(l.dealScore) >= 60);
    expect(deals.length).toBeGreaterThan(25); // more than the cap and than a digest shows

    // Every lot scored, one match job each, as the scorer queues them.
    for (const l of lots) await ctx.queues.enqueue('match', { listingId: l.id, event: 'scored', eventKey: `score-${l.id}` });
    // Settled: every good deal matched, and each either handed to the notifier or rolled over.
    const rows = await waitFor(async () => {
      const found = await listAlertNotifications(ctx.database.db, alert.id);
      return found.length === deals.length && found.every((r) => r.frequency === 'daily' || r.status !== 'pending') ? found : undefined;
    }, 30_000, 'every good deal matched and dispatched');
    // Nothing below a good deal, and nothing unscored.
    expect(rows.every((r) => r.dealScore !== null && badgeScore(r.dealScore) >= 60)).toBe(true);
    expect(new Set(rows.map((r) => r.listingId))).toEqual(new Set(deals.map((l) => l.id)));

    const instant = rows.filter((r) => r.frequency === 'instant');
    expect(instant).toHaveLength(5);
    const mails = await waitFor(async () => {
      const found = (await listMessages(ctx.database.db, { to: buyer.user.email, limit: 200 })).filter((m) => m.kind === 'alert');
      return found.length === 5 && found.every((m) => m.status === 'sent') ? found : undefined;
    }, 20_000, 'the 5 instant e-mails');
    for (const m of mails) expect(m.textBody).toMatch(/Deal score: \d+ • (Good|Excellent) Deal/);
    // Each says why: criteria with the level, deal level, fair value and its range, time left.
    expect(mails[0]!.textBody).toContain('Why it matched: Excavators · Below $500,000 · any location · any condition · good deals or better');
    expect(mails[0]!.textBody).toContain('Fair value range: $60,000 - $100,000');
    expect(mails[0]!.textBody).toMatch(/Time left: 1d [56]h/);

    // The notifications list shows the same reasons, and which ones wait for the digest.
    const listed = await app.inject({ method: 'GET', url: '/api/alerts/notifications/?limit=200', headers: bearer(buyer.access_token) });
    const items = listed.json().data.items as Array<Record<string, unknown>>;
    expect(items).toHaveLength(deals.length);
    expect(items.filter((n) => n.rolled_into_digest)).toHaveLength(deals.length - 5);
    expect(items[0]).toMatchObject({ criteria: expect.stringContaining('good deals or better'), fair_value: 80_000, value_low: 60_000, value_high: 100_000, auction_end_at: expect.any(String) });
    expect(['Good Deal', 'Excellent Deal']).toContain(items[0]!.deal_level);

    // The daily digest: the rolled-over deals, best first, 20 shown and a link to the rest.
    const day = new Date().toISOString().slice(0, 10);
    const digest = createDigestHandler(ctx);
    expect(await digest({ day, slot: `${day.replaceAll('-', '')}0700` }, {} as never)).toEqual({ gathered: 1, queued: 1 });
    const [digestMail] = await waitFor(async () => {
      const found = (await listMessages(ctx.database.db, { to: buyer.user.email, limit: 200 })).filter((m) => m.kind === 'alert_digest' && m.status === 'sent');
      return found.length > 0 ? found : undefined;
    }, 20_000, 'the digest e-mail');
    const rolled = deals.length - 5;
    expect(digestMail!.subject).toBe(`Daily digest: ${rolled} matches for your Excavators alert`);
    const shownScores = [...digestMail!.textBody.matchAll(/Deal score: (\d+) •/g)].map((m) => Number(m[1]));
    expect(shownScores).toHaveLength(20);
    expect(shownScores).toEqual([...shownScores].sort((a, b) => b - a));
    expect(digestMail!.textBody).toContain(`…and ${rolled - 20} more: http://localhost:8080/alerts`);
    // Still 5 instant e-mails: the digest did not send the capped ones one by one.
    expect((await listMessages(ctx.database.db, { to: buyer.user.email, limit: 200 })).filter((m) => m.kind === 'alert')).toHaveLength(5);

    // The day's count lives on the alert; a dispatch run again (as after a crash) decides nothing
    // twice, and a new UTC day starts from an empty count.
    const capOf = async () => ((await ctx.database.db.execute(sql`SELECT cap_day, cap_used FROM alerts WHERE id = ${alert.id}`)) as unknown as Array<{ cap_day: string; cap_used: number }>)[0]!;
    expect(await capOf()).toEqual({ cap_day: day, cap_used: 5 });
    const caps = { email: 5, sms: 3 };
    expect(await rollOverBeyondDailyCap(ctx.database.db, lots.map((l) => l.id), new Date(), caps)).toBe(0);
    expect(await capOf()).toEqual({ cap_day: day, cap_used: 5 });
    const tomorrow = new Date(Date.now() + 24 * HOUR);
    const [late, later] = await insertListings(ctx.database.db, source, [excavator(100, 880), excavator(101, 950)]);
    await matchChangedListings(ctx.database.db, [late!, later!].map((l) => ({ listingId: l.id, trigger: 'scored' as const })), tomorrow);
    expect(await rollOverBeyondDailyCap(ctx.database.db, [late!.id, later!.id], tomorrow, caps)).toBe(0);
    expect(await capOf()).toEqual({ cap_day: tomorrow.toISOString().slice(0, 10), cap_used: 2 });
  }, 90_000);

  it('unscored lots only by opt-in; excellent only narrows', async () => {
    const buyer = await registerUser(app);
    const plain = await createAlert(buyer, { equipment_type: 'Bulldozers', frequency: 'daily' });
    const withUnscored = await createAlert(buyer, { equipment_type: 'Bulldozers', frequency: 'daily', include_unscored: true });
    const excellent = await createAlert(buyer, { equipment_type: 'Bulldozers', frequency: 'daily', deal_level: 'excellent' });
    const lots = await insertListings(ctx.database.db, source, [
      { ...excavator(1, null), title: 'Dozer unscored', categoryId: 2 },
      { ...excavator(2, 650), title: 'Dozer good', categoryId: 2 },
      { ...excavator(3, 850), title: 'Dozer excellent', categoryId: 2 },
      { ...excavator(4, 500), title: 'Dozer fair', categoryId: 2 },
    ]);
    await matchChangedListings(ctx.database.db, lots.map((l) => ({ listingId: l.id, trigger: 'scored' as const })));
    const titles = async (alertId: number) => {
      const ids = new Set((await listAlertNotifications(ctx.database.db, alertId)).map((r) => r.listingId));
      return lots.filter((l) => ids.has(l.id)).map((l) => l.title).sort();
    };
    expect(await titles(plain.id)).toEqual(['Dozer excellent', 'Dozer good']);
    expect(await titles(withUnscored.id)).toEqual(['Dozer excellent', 'Dozer good', 'Dozer unscored']);
    expect(await titles(excellent.id)).toEqual(['Dozer excellent']);
  });

  it('one message per listing per alert; again only when the price falls 10% or the level goes up', async () => {
    const buyer = await registerUser(app);
    const alert = await createAlert(buyer, { equipment_type: 'Cranes', frequency: 'daily' });
    const [lot] = await insertListings(ctx.database.db, source, [{ ...excavator(1, 650, 100_000), title: 'Crane', categoryId: 6 }]);
    const rematch = async (set: { priceUsd?: number; dealScore?: number }) => {
      if (set.priceUsd !== undefined) await ctx.database.db.execute(sql`UPDATE listings SET price_usd = ${set.priceUsd} WHERE id = ${lot!.id}`);
      if (set.dealScore !== undefined) await ctx.database.db.execute(sql`UPDATE listings SET deal_score = ${set.dealScore} WHERE id = ${lot!.id}`);
      await matchChangedListings(ctx.database.db, [{ listingId: lot!.id, trigger: set.priceUsd !== undefined ? 'price_drop' : 'scored' }]);
      return (await listAlertNotifications(ctx.database.db, alert.id)).map((r) => `${r.event}:${r.eventKey}`);
    };
    expect(await rematch({})).toEqual(['match:']);
    expect(await rematch({ dealScore: 690 })).toEqual(['match:']); // rescored, still good
    expect(await rematch({ priceUsd: 95_000 })).toEqual(['match:']); // 5% down: not material
    expect(await rematch({ priceUsd: 90_000 })).toEqual(['match:', 'price_drop:90000']); // 10% below the lowest notified
    expect(await rematch({ priceUsd: 85_000 })).toEqual(['match:', 'price_drop:90000']); // under 10% below 90,000
    expect(await rematch({ dealScore: 820 })).toEqual(['match:', 'price_drop:90000', 'level_up:excellent']);
    expect(await rematch({ dealScore: 650 })).toEqual(['match:', 'price_drop:90000', 'level_up:excellent']); // down: nothing
    expect(await rematch({ dealScore: 830 })).toEqual(['match:', 'price_drop:90000', 'level_up:excellent']); // excellent again: told already
  });
});
