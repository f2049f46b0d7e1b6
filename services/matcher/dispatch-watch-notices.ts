/**
 * The watchlist dispatcher (issue 31): claims the watched lots due at `now` (one range scan of
 * the partial due index, SKIP LOCKED so dispatchers share the work), decides their notices with
 * the pure rules, renders them, records them in the message log under keys per (watch, notice,
 * end time) and writes each row's new state and next due time — all in one transaction per
 * batch — then hands the messages to the notifier's batch queue.
 *
 * A crash before the commit leaves nothing (the rows are due again); a crash after it leaves
 * messages recorded as queued, which the next run's jobs (same job ids) or the notifier's
 * stranded sweep send. The message log's unique key means nothing is sent twice either way.
 * Same rules as alerts: a per-user daily cap, suppressed addresses and STOP replies honoured, SMS
 * only on premium with a textable phone (else e-mail).
 */
import { toE164 } from '../alerts/alert-rules.js';
import { listUnsubscribeHeaders } from '../alerts/unsubscribe-tokens.js';
import { currentSubscription, entitlementsFor, type Entitlements } from '../billing/entitlements.js';
import type { AppContext } from '../shared/context.js';
import { recordQueuedMessages, type NewOutboxMessage } from '../shared/repositories/outbox-repository.js';
import { optedOutPhones } from '../shared/repositories/alerts-repository.js';
import { suppressedEmails } from '../shared/repositories/suppressions-repository.js';
import {
  applyWatchStates,
  claimDueWatches,
  subscriptionsOfUsers,
  takeDailyCap,
  type DueWatch,
  type WatchStateUpdate,
} from '../shared/repositories/watchlist-repository.js';
import { renderWatchEmail, renderWatchSms, WATCH_KINDS, watchMessageKey } from '../watchlist/watch-messages.js';
import { evaluateWatch, type NoticeKind, type WatchState } from '../watchlist/watch-rules.js';
import { watchLinkKey, watchUnsubscribeUrl } from '../watchlist/watch-unsubscribe.js';

type Deps = Pick<AppContext, 'config' | 'database' | 'queues' | 'logger'>;

export const WATCH_SKIPPED = {
  cap: 'Not sent: the daily limit of watchlist messages was reached',
  suppressed: 'Not sent: the e-mail address bounced or reported spam (re-enable it on the account page)',
  stopped: 'Not sent: the phone number replied STOP',
  inactive: 'Not sent: the account is deactivated',
} as const;

export type DispatchOutcome = { evaluated: number; queued: number; skipped: number; batches: number };

type Planned = { row: DueWatch; kind: NoticeKind; channel: 'email' | 'sms'; phone: string | null; stopped?: boolean };

/**
 * Sends every notice due at `now`, `batchSize` rows per transaction, until none is left (or
 * `maxBatches` ran: the next tick continues). Returns what it did.
 */
export async function dispatchDueWatches(deps: Deps, now: Date = new Date(), opts: { batchSize?: number; maxBatches?: number } = {}): Promise<DispatchOutcome> {
  const batchSize = opts.batchSize ?? 2000;
  const maxBatches = opts.maxBatches ?? 100;
  const total: DispatchOutcome = { evaluated: 0, queued: 0, skipped: 0, batches: 0 };
  const linkKey = watchLinkKey(deps.config);
  for (let i = 0; i < maxBatches; i++) {
    const { evaluated, queued, skipped } = await dispatchOneBatch(deps, now, batchSize, linkKey);
    total.evaluated += evaluated;
    total.queued += queued.length;
    total.skipped += skipped;
    if (queued.length > 0) {
      const jobs = watchBatches(queued, deps.config.NOTIFY_BATCH_SIZE);
      await deps.queues.enqueueBulk('notifyBatch', jobs);
      total.batches += jobs.length;
    }
    if (evaluated < batchSize) break;
  }
  return total;
}

async function dispatchOneBatch(deps: Deps, now: Date, batchSize: number, linkKey: Buffer) {
  const appUrl = deps.config.APP_URL;
  const day = now.toISOString().slice(0, 10);
  return deps.database.db.transaction(async (tx) => {
    const due = await claimDueWatches(tx, now, batchSize);
    if (due.length === 0) return { evaluated: 0, queued: [] as Array<{ listingId: number; messageKey: string }>, skipped: 0 };

    const plans = await plansOf(tx, [...new Set(due.map((r) => r.userId))], now);
    const updates: WatchStateUpdate[] = [];
    const planned: Planned[] = [];
    for (const row of due) {
      const plan = plans.get(row.userId)!;
      const state: WatchState = { ...row };
      const listing = { status: row.status, auctionEndAt: row.auctionEndAt, priceUsd: row.priceUsd };
      const verdict = evaluateWatch(state, listing, { priceRiseNotices: plan.priceRiseNotices, now });
      const update: WatchStateUpdate = {
        id: row.id,
        dueAt: null,
        reminderEndAt: row.reminderEndAt,
        reminderSentAt: null,
        priceNoticeMax: row.priceNoticeMax,
        priceNoticeAt: null,
        closedNoticeAt: row.closedNoticeAt,
        goneNoticeAt: row.goneNoticeAt,
        // A row with no notice now keeps what it said last.
        lastNoticeError: verdict.notices.length > 0 ? null : row.lastNoticeError,
      };
      // A notice is decided once, sent or not: the row's state records it either way.
      for (const kind of verdict.notices) {
        if (kind === 'reminder') Object.assign(update, { reminderEndAt: row.auctionEndAt, reminderSentAt: now });
        if (kind === 'price_rise') Object.assign(update, { priceNoticeMax: row.maxPrice, priceNoticeAt: now });
        if (kind === 'closed') update.closedNoticeAt = now;
        if (kind === 'gone') update.goneNoticeAt = now;
        const sms = row.deliveryMethod === 'sms' && plan.sms ? toE164(row.phone) : null;
        planned.push({ row, kind, channel: sms ? 'sms' : 'email', phone: sms });
      }
      const after = evaluateWatch(
        { ...state, reminderEndAt: update.reminderEndAt, priceNoticeMax: update.priceNoticeMax, priceNoticeAt: update.priceNoticeAt ?? state.priceNoticeAt, closedNoticeAt: update.closedNoticeAt, goneNoticeAt: update.goneNoticeAt },
        listing,
        { priceRiseNotices: plan.priceRiseNotices, now },
      );
      update.dueAt = after.nextDueAt;
      updates.push(update);
    }

    // The same gates as alert messages: STOP replies, suppressed addresses, the daily cap.
    const stopped = await optedOutPhones(tx, planned.filter((p) => p.phone).map((p) => p.phone!));
    for (const p of planned) if (p.channel === 'sms' && stopped.has(p.phone!)) Object.assign(p, { channel: 'email', phone: null, stopped: true });
    const smsGranted = await takeDailyCap(tx, day, 'sms', countByUser(planned.filter((p) => p.channel === 'sms')), deps.config.WATCH_DAILY_SMS_CAP);
    // Beyond the SMS cap, the notice goes by e-mail instead.
    for (const p of planned) {
      if (p.channel !== 'sms') continue;
      const left = smsGranted.get(p.row.userId) ?? 0;
      if (left > 0) smsGranted.set(p.row.userId, left - 1);
      else Object.assign(p, { channel: 'email', phone: null });
    }
    const suppressed = await suppressedEmails(tx, planned.filter((p) => p.channel === 'email').map((p) => p.row.email));
    const errors = new Map<number, string>();
    const mailable = planned.filter((p) => {
      const error = !p.row.userActive ? WATCH_SKIPPED.inactive : p.channel === 'email' && suppressed.has(p.row.email.toLowerCase()) ? WATCH_SKIPPED.suppressed : null;
      if (error) errors.set(p.row.id, error);
      return error === null;
    });
    const emailGranted = await takeDailyCap(tx, day, 'email', countByUser(mailable.filter((p) => p.channel === 'email')), deps.config.WATCH_DAILY_EMAIL_CAP);

    const messages: NewOutboxMessage[] = [];
    const queued: Array<{ listingId: number; messageKey: string }> = [];
    for (const p of mailable) {
      if (p.channel === 'email') {
        const left = emailGranted.get(p.row.userId) ?? 0;
        if (left <= 0) {
          errors.set(p.row.id, WATCH_SKIPPED.cap);
          continue;
        }
        emailGranted.set(p.row.userId, left - 1);
      }
      const input = {
        kind: p.kind,
        watchId: p.row.id,
        listing: {
          id: p.row.listingId,
          slug: p.row.slug,
          title: p.row.title,
          status: p.row.status,
          priceUsd: p.row.priceUsd,
          dealScore: p.row.dealScore,
          // How it ended is told against the fair value shown while the lot was open.
          fairValue: p.kind === 'closed' ? (p.row.outcomeFairValue ?? p.row.fairValue) : p.row.fairValue,
          auctionEndAt: p.row.auctionEndAt,
          finalPrice: p.row.finalPrice,
        },
        maxPrice: p.row.maxPrice,
        maxPriceFollowsGood: p.row.maxPriceFollowsGood,
        appUrl,
        now,
      };
      const messageKey = watchMessageKey(p.row.id, p.kind, p.row.auctionEndAt, p.row.maxPriceFollowsGood ? 'good' : p.row.maxPrice);
      if (p.channel === 'sms') {
        messages.push({ messageKey, channel: 'sms', kind: WATCH_KINDS[p.kind], recipient: p.phone!, subject: '', textBody: renderWatchSms(input) });
      } else {
        const unsubscribe = watchUnsubscribeUrl(appUrl, linkKey, p.row.id);
        const email = renderWatchEmail({ ...input, unsubscribeUrl: unsubscribe });
        messages.push({ messageKey, channel: 'email', kind: WATCH_KINDS[p.kind], recipient: p.row.email, subject: email.subject, textBody: email.text, htmlBody: email.html, headers: listUnsubscribeHeaders(unsubscribe) });
      }
      queued.push({ listingId: p.row.listingId, messageKey });
    }
    for (const p of planned) if (p.stopped && !errors.has(p.row.id)) errors.set(p.row.id, WATCH_SKIPPED.stopped);
    for (const u of updates) if (errors.has(u.id)) u.lastNoticeError = errors.get(u.id)!;

    await recordQueuedMessages(tx, messages);
    await applyWatchStates(tx, updates);
    return { evaluated: due.length, queued, skipped: planned.length - queued.length };
  });
}

/**
 * Notify-batch jobs of at most `size` messages. Unlike alert matches (many messages about one
 * listing), watch notices are a few per listing: batches mix listings (the payload names the
 * first), or 100k reminders would be 100k jobs.
 */
export function watchBatches(messages: Array<{ listingId: number; messageKey: string }>, size: number): Array<{ listingId: number; messageKeys: string[] }> {
  const batches: Array<{ listingId: number; messageKeys: string[] }> = [];
  for (let i = 0; i < messages.length; i += size) {
    const chunk = messages.slice(i, i + size);
    batches.push({ listingId: chunk[0]!.listingId, messageKeys: chunk.map((m) => m.messageKey) });
  }
  return batches;
}

function countByUser(planned: Planned[]): Array<{ userId: number; want: number }> {
  const counts = new Map<number, number>();
  for (const p of planned) counts.set(p.row.userId, (counts.get(p.row.userId) ?? 0) + 1);
  return [...counts].map(([userId, want]) => ({ userId, want }));
}

/** Each user's entitlements, from one read of their subscriptions (the one entitlements function). */
async function plansOf(tx: Parameters<typeof subscriptionsOfUsers>[0], userIds: number[], now: Date): Promise<Map<number, Entitlements>> {
  const subs = await subscriptionsOfUsers(tx, userIds);
  const byUser = new Map<number, typeof subs>();
  for (const s of subs) byUser.set(s.userId, [...(byUser.get(s.userId) ?? []), s]);
  return new Map(userIds.map((id) => [id, entitlementsFor(currentSubscription(byUser.get(id) ?? [], now), now)]));
}
