/**
 * A match job killed after marking its notifications queued but before adding their
 * notify-batch job (the window the fault suite's `notifications-queued` point cuts) leaves
 * messages queued with no job. Its rerun — BullMQ hands the stalled job on, `stalledCounter` 1 —
 * queues them again, so they are sent once, at once, not minutes later by the notifier's sweep.
 * A first run queues nothing for messages it did not record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchInstantNotifications } from '../../services/matcher/dispatch-notifications.js';
import { createMatchHandler, isRerun } from '../../services/matcher/match-listings.js';
import { startNotifier } from '../../services/notifier/index.js';
import { insertAlertWithinLimit, listAlertNotifications, matchChangedListings } from '../../services/shared/repositories/alerts-repository.js';
import { findMessageByKey } from '../../services/shared/repositories/outbox-repository.js';
import { insertUser } from '../../services/shared/repositories/users-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { waitFor } from '../support/wait.js';

let ctx: TestContext;
let notifier: ServiceHandle | undefined;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await notifier?.stop();
  await ctx?.close();
});

const batchJobs = async () => {
  const counts = await ctx.queues.queue('notifyBatch').getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  return Object.values(counts).reduce((a, b) => a + b, 0);
};

describe('a match job cut off between marking its notifications and queuing their messages', () => {
  it('is a rerun only when it failed or stalled before', () => {
    expect(isRerun(undefined)).toBe(false);
    expect(isRerun({ attemptsMade: 0, stalledCounter: 0 })).toBe(false);
    expect(isRerun({ attemptsMade: 0, stalledCounter: 1 })).toBe(true);
    expect(isRerun({ attemptsMade: 1, stalledCounter: 0 })).toBe(true);
  });

  it('its rerun queues the stranded messages once; they are sent once', async () => {
    const db = ctx.database.db;
    const user = await insertUser(db, { email: 'rerun@dealradar.test', firstName: 'Re', lastName: 'Run', passwordHash: 'x' });
    const alert = (await insertAlertWithinLimit(
      db,
      user!.id,
      { categoryId: 1, priceMin: null, priceMax: null, state: null, condition: null, deliveryMethod: 'email', frequency: 'instant', dealLevel: 'good', minDealScore: 0, includeUnscored: true, keywords: null, keywordTerms: null, isActive: true, nearZip: null, nearLat: null, nearLon: null, radiusMiles: null },
      null,
    )) as { id: number };
    const source = await insertSource(db);
    const [listing] = await insertListings(db, source, [{ title: '2014 CAT 320D Excavator', categoryId: 1, priceUsd: 45_000, price: 45_000, dealScore: 871, fairValue: 62_000, state: 'TX' }]);
    const payload = { listingId: listing!.id, event: 'scored' as const, eventKey: 'score-1' };
    expect(await matchChangedListings(db, [{ listingId: listing!.id, trigger: 'scored' }], new Date())).toBe(1);

    // The first run dies as it adds the batch job: messages recorded, notifications marked queued.
    const dying = { ...ctx, queues: { enqueueBulk: () => Promise.reject(new Error('SIGKILL')) } as unknown as TestContext['queues'] };
    await expect(dispatchInstantNotifications(dying, [listing!.id])).rejects.toThrow('SIGKILL');
    const [notification] = await listAlertNotifications(db, alert.id);
    expect(notification).toMatchObject({ status: 'queued' });
    const key = notification!.messageKey!;
    expect(await findMessageByKey(db, key)).toMatchObject({ status: 'queued' });
    expect(await batchJobs()).toBe(0);

    // A first run does not look for them (only a rerun pays for that).
    const handler = createMatchHandler(ctx);
    await handler(payload, { attemptsMade: 0, stalledCounter: 0 } as never);
    expect(await batchJobs()).toBe(0);

    // The job's rerun: one batch job with the message, and a second rerun adds none.
    await handler(payload, { attemptsMade: 0, stalledCounter: 1 } as never);
    await handler(payload, { attemptsMade: 0, stalledCounter: 1 } as never);
    expect(await batchJobs()).toBe(1);
    const [job] = await ctx.queues.queue('notifyBatch').getJobs(['waiting']);
    expect(job!.data).toEqual({ listingId: listing!.id, messageKeys: [key] });

    notifier = await startNotifier(ctx);
    await waitFor(async () => ((await findMessageByKey(db, key))?.status === 'sent' ? true : undefined), 20_000, 'the message sent');
    expect((await listAlertNotifications(db, alert.id)).map((n) => n.status)).toEqual(['sent']);
  });
});
