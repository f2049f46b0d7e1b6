/**
 * Hands matched notifications to the notifier: renders each message (why it matched, link,
 * unsubscribe link) under a key derived from the notification, records instant ones in the
 * message log and adds one `notify-batch` job per batch of them (digests: one `notify` job each),
 * then marks them queued. Running it twice (a retried match job, a crash between the steps)
 * records and queues the same keys again, which the queue and the message log send once.
 */
import { distanceMiles } from '../shared/geo/distance.js';
import { deliveredPrice } from '../valuation/delivered-price.js';
import { digestMessageKey, instantMessageKey, ALERT_DIGEST_KIND, ALERT_MESSAGE_KIND } from '../shared/rules/alert-message-keys.js';
import {
  renderDigestEmail,
  renderDigestSms,
  renderMatchEmail,
  renderMatchSms,
  type MessageAlert,
  type MessageListing,
} from '../alerts/alert-messages.js';
import { categoryName, toE164 } from '../alerts/alert-rules.js';
import { alertLinkKey } from '../alerts/alerts-service.js';
import { listUnsubscribeHeaders, unsubscribeUrl } from '../alerts/unsubscribe-tokens.js';
import { entitlementsOf } from '../billing/billing-service.js';
import type { AppContext } from '../shared/context.js';
import { faultPoint } from '../shared/fault-points.js';
import type { PayloadInput } from '../shared/queues.js';
import { recordQueuedMessages, type NewOutboxMessage } from '../shared/repositories/outbox-repository.js';
import { suppressedEmails } from '../shared/repositories/suppressions-repository.js';
import {
  markDigestsQueued,
  markDigestsSkipped,
  markNotificationsQueued,
  markNotificationsSkipped,
  optedOutPhones,
  pendingDigestDeliveries,
  pendingInstantDeliveries,
  queuedInstantMessages,
  rollOverBeyondDailyCap,
  type DeliveryRow,
  type DigestDelivery,
} from '../shared/repositories/alerts-repository.js';
import type { DeliveryMethod } from '../../db/schema/alerts.js';

type Deps = Pick<AppContext, 'config' | 'database' | 'queues' | 'logger'>;

export const SKIP_ALERT_OFF = 'The alert was turned off before the message was sent';
export const SKIP_OPTED_OUT = 'The phone number replied STOP';
export const SKIP_SUPPRESSED = 'The e-mail address bounced or reported spam: re-enable it on the account page';

export function messageAlert(
  row: Pick<DeliveryRow, 'alertId' | 'categoryId' | 'priceMin' | 'priceMax' | 'alertState' | 'alertCondition' | 'dealLevel' | 'minDealScore' | 'includeUnscored' | 'keywords'> &
    Partial<Pick<DeliveryRow, 'nearZip' | 'radiusMiles' | 'worthTheTrip'>>,
): MessageAlert {
  return {
    id: row.alertId,
    equipmentType: categoryName(row.categoryId),
    priceMin: row.priceMin,
    priceMax: row.priceMax,
    state: row.alertState,
    condition: row.alertCondition,
    dealLevel: row.dealLevel,
    minDealScore: row.minDealScore,
    includeUnscored: row.includeUnscored,
    keywords: row.keywords,
    nearZip: row.nearZip ?? null,
    radiusMiles: row.radiusMiles ?? null,
    worthTheTrip: row.worthTheTrip ?? false,
  };
}

/**
 * The distance and price delivered to the alert's ZIP code, when it has one and the lot is placed
 * (instant messages and each item of a digest).
 */
export function deliveredFor(
  row: Pick<DeliveryRow, 'nearZip' | 'nearLat' | 'nearLon' | 'lat' | 'lon' | 'geoPrecision' | 'priceUsd' | 'buyersPremiumPct' | 'listingCategoryId' | 'title'>,
): MessageListing['delivered'] {
  if (!row.nearZip || row.nearLat === null || row.nearLon === null || row.lat === null || row.lon === null) return null;
  const precision = row.geoPrecision === 'zip' || row.geoPrecision === 'city' || row.geoPrecision === 'state' ? row.geoPrecision : null;
  if (!precision) return null;
  const distance = distanceMiles({ lat: row.nearLat, lon: row.nearLon }, { lat: row.lat, lon: row.lon });
  const d = deliveredPrice({ price: row.priceUsd, buyersPremiumPct: row.buyersPremiumPct, categoryId: row.listingCategoryId, title: row.title, distanceMiles: distance, precision });
  return { zip: row.nearZip, distanceMiles: distance, precision, premium: d.premium, haulLow: d.haul_low, haulHigh: d.haul_high, totalLow: d.total_low, totalHigh: d.total_high };
}

function toDate(value: Date | string | null): Date | null {
  return value === null ? null : value instanceof Date ? value : new Date(value);
}

/**
 * Which channel a message really goes by: an SMS alert whose owner lost the SMS entitlement or
 * the phone number falls back to e-mail; a number that replied STOP gets nothing (null).
 */
async function resolveChannels(
  deps: Deps,
  rows: Array<{ userId: number; channel: DeliveryMethod; phone: string }>,
): Promise<Array<{ channel: DeliveryMethod; phone: string | null } | null>> {
  const smsRows = rows.filter((r) => r.channel === 'sms');
  if (smsRows.length === 0) return rows.map(() => ({ channel: 'email' as const, phone: null }));
  const smsAllowed = new Map<number, boolean>();
  for (const userId of new Set(smsRows.map((r) => r.userId))) {
    smsAllowed.set(userId, (await entitlementsOf(deps.database.db, userId)).sms);
  }
  const stopped = await optedOutPhones(deps.database.db, smsRows.map((r) => toE164(r.phone)).filter((p): p is string => p !== null));
  return rows.map((r) => {
    if (r.channel !== 'sms') return { channel: 'email', phone: null };
    const phone = toE164(r.phone);
    if (!phone || !smsAllowed.get(r.userId)) return { channel: 'email', phone: null };
    if (stopped.has(phone)) return null;
    return { channel: 'sms', phone };
  });
}

/** A listing's messages in batches of at most `size`, in the order given (batches never mix listings). */
export function notifyBatches(messages: Array<{ listingId: number; messageKey: string }>, size: number): PayloadInput<'notifyBatch'>[] {
  const byListing = new Map<number, string[]>();
  for (const m of messages) {
    const keys = byListing.get(m.listingId) ?? [];
    keys.push(m.messageKey);
    byListing.set(m.listingId, keys);
  }
  const batches: PayloadInput<'notifyBatch'>[] = [];
  for (const [listingId, keys] of byListing) {
    for (let i = 0; i < keys.length; i += size) batches.push({ listingId, messageKeys: keys.slice(i, i + size) });
  }
  return batches;
}

/**
 * Records the instant messages of these listings' pending notifications in the message log and
 * queues them for the notifier in batches; returns how many.
 *
 * `rerun`: this job ran before (it stalled with its worker, or failed) and may have died after
 * marking its notifications queued but before adding their notify-batch jobs; the listings'
 * messages still queued are then queued again. The batches are the ones the first run made
 * (same keys in the same order, so the same job ids) unless some were sent meanwhile; a message
 * in two jobs is still sent once (the claim), so this is safe, and only reruns pay for it.
 */
export async function dispatchInstantNotifications(deps: Deps, listingIds: number[], now: Date = new Date(), opts: { rerun?: boolean } = {}): Promise<number> {
  await rollOverBeyondDailyCap(deps.database.db, listingIds, now, { email: deps.config.ALERT_DAILY_EMAIL_CAP, sms: deps.config.ALERT_DAILY_SMS_CAP });
  if (opts.rerun) {
    const stranded = await queuedInstantMessages(deps.database.db, listingIds);
    if (stranded.length > 0) {
      await deps.queues.enqueueBulk('notifyBatch', notifyBatches(stranded, deps.config.NOTIFY_BATCH_SIZE));
      deps.logger.info({ listingIds, messages: stranded.length }, 'queued messages of an interrupted match job queued again');
    }
  }
  const rows = await pendingInstantDeliveries(deps.database.db, listingIds);
  if (rows.length === 0) return 0;
  const linkKey = alertLinkKey(deps.config);
  const appUrl = deps.config.APP_URL;

  const turnedOff = rows.filter((r) => !r.alertActive);
  const live = rows.filter((r) => r.alertActive);
  const channels = await resolveChannels(deps, live);
  const suppressed = await suppressedEmails(deps.database.db, live.filter((_, i) => channels[i]?.channel === 'email').map((r) => r.email));
  const messages: NewOutboxMessage[] = [];
  const queued: Array<{ id: number; messageKey: string; channel: DeliveryMethod; listingId: number }> = [];
  const optedOut: number[] = [];
  const bounced: number[] = [];

  live.forEach((row, i) => {
    const route = channels[i];
    if (!route) {
      optedOut.push(row.notificationId);
      return;
    }
    if (route.channel === 'email' && suppressed.has(row.email.toLowerCase())) {
      bounced.push(row.notificationId);
      return;
    }
    const listing: MessageListing = { id: row.listingId, slug: row.slug, title: row.title, priceUsd: row.priceUsd, dealScore: row.dealScore, fairValue: row.fairValue, valueLow: row.valueLow, valueHigh: row.valueHigh, buyersPremiumPct: row.buyersPremiumPct, goodBidLimit: row.goodBidLimit, auctionEndAt: toDate(row.auctionEndAt), city: row.city, state: row.state, delivered: deliveredFor(row) };
    const messageKey = instantMessageKey(row.notificationId);
    if (route.channel === 'sms') {
      messages.push({ messageKey, channel: 'sms', kind: ALERT_MESSAGE_KIND, recipient: route.phone!, subject: '', textBody: renderMatchSms({ alert: messageAlert(row), listing, event: row.event, appUrl, now }) });
    } else {
      const unsubscribe = unsubscribeUrl(appUrl, linkKey, row.alertId);
      const email = renderMatchEmail({ alert: messageAlert(row), listing, event: row.event, appUrl, unsubscribeUrl: unsubscribe, now });
      messages.push({ messageKey, channel: 'email', kind: ALERT_MESSAGE_KIND, recipient: row.email, subject: email.subject, textBody: email.text, htmlBody: email.html, headers: listUnsubscribeHeaders(unsubscribe) });
    }
    queued.push({ id: row.notificationId, messageKey, channel: route.channel, listingId: row.listingId });
  });

  // The messages go into the message log first (a rerun keeps the first rendering) and the
  // notifications name them before any job can send them; then one notify-batch job per batch.
  // The jobs are small, and if adding them fails the stranded sweep finds the queued messages.
  await recordQueuedMessages(deps.database.db, messages);
  faultPoint('messages-recorded');
  await markNotificationsQueued(deps.database.db, queued);
  faultPoint('notifications-queued');
  await deps.queues.enqueueBulk('notifyBatch', notifyBatches(queued, deps.config.NOTIFY_BATCH_SIZE));
  await markNotificationsSkipped(deps.database.db, turnedOff.map((r) => r.notificationId), SKIP_ALERT_OFF);
  await markNotificationsSkipped(deps.database.db, optedOut, SKIP_OPTED_OUT);
  await markNotificationsSkipped(deps.database.db, bounced, SKIP_SUPPRESSED);
  return messages.length;
}

/** Queues the digests of `day` not yet handed to the notifier; returns how many. */
export async function dispatchDigests(deps: Deps, day: string, now: Date = new Date()): Promise<number> {
  const digests: DigestDelivery[] = await pendingDigestDeliveries(deps.database.db, day);
  if (digests.length === 0) return 0;
  const linkKey = alertLinkKey(deps.config);
  const appUrl = deps.config.APP_URL;
  const channels = await resolveChannels(deps, digests);
  const suppressed = await suppressedEmails(deps.database.db, digests.filter((_, i) => channels[i]?.channel === 'email').map((d) => d.email));
  const bounced: number[] = [];
  const jobs: PayloadInput<'notify'>[] = [];
  const digestMessages: NewOutboxMessage[] = [];
  const queuedIds: number[] = [];
  const optedOut: number[] = [];

  digests.forEach((d, i) => {
    const route = channels[i];
    if (!route) {
      optedOut.push(d.digestId);
      return;
    }
    if (route.channel === 'email' && suppressed.has(d.email.toLowerCase())) {
      bounced.push(d.digestId);
      return;
    }
    const alert = messageAlert(d);
    const items = d.items.map((item) => ({
      event: item.event,
      listing: { ...item, id: item.listingId, auctionEndAt: toDate(item.auctionEndAt), delivered: deliveredFor({ ...item, nearZip: d.nearZip, nearLat: d.nearLat, nearLon: d.nearLon }) },
    }));
    if (items.length === 0) return;
    const messageKey = digestMessageKey(d.alertId, d.day);
    if (route.channel === 'sms') {
      jobs.push({ channel: 'sms', messageKey, to: route.phone!, body: renderDigestSms({ alert, items, appUrl }), kind: ALERT_DIGEST_KIND });
    } else {
      const unsubscribe = unsubscribeUrl(appUrl, linkKey, d.alertId);
      const email = renderDigestEmail({ alert, items, day: d.day, appUrl, unsubscribeUrl: unsubscribe, now });
      // Recorded first with its headers: the notify job's own record of it then changes nothing.
      digestMessages.push({ messageKey, channel: 'email', kind: ALERT_DIGEST_KIND, recipient: d.email, subject: email.subject, textBody: email.text, htmlBody: email.html, headers: listUnsubscribeHeaders(unsubscribe) });
      jobs.push({ channel: 'email', messageKey, to: d.email, subject: email.subject, text: email.text, html: email.html, kind: ALERT_DIGEST_KIND });
    }
    queuedIds.push(d.digestId);
  });

  await recordQueuedMessages(deps.database.db, digestMessages);
  faultPoint('digest-recorded');
  await deps.queues.enqueueBulk('notify', jobs);
  await markDigestsQueued(deps.database.db, queuedIds);
  await markDigestsSkipped(deps.database.db, optedOut, SKIP_OPTED_OUT);
  await markDigestsSkipped(deps.database.db, bounced, SKIP_SUPPRESSED);
  return jobs.length;
}
