/**
 * The watchlist API's work (issue 31): the signed-in user's watched lots with the plan's limits
 * (the one entitlements function), each with its card, reminder settings, the notices sent and,
 * once closed, how it ended; and the one-click unsubscribe of watchlist messages. Routes call
 * this; the rules are the pure functions of watch-rules.ts.
 */
import type { DeliveryMethod } from '../../db/schema/alerts.js';
import type { ListingStatus } from '../../db/schema/listings.js';
import type { RemindBeforeMinutes } from '../../db/schema/watchlist.js';
import { formatUsd } from '../alerts/alert-messages.js';
import { toE164 } from '../alerts/alert-rules.js';
import { entitlementsOf } from '../billing/billing-service.js';
import type { Entitlements } from '../billing/entitlements.js';
import { toCard } from '../listings/listing-rules.js';
import type { ListingCard } from '../listings/listing-schemas.js';
import type { AppContext } from '../shared/context.js';
import { forbidden, HttpError, notFound, ValidationError } from '../shared/errors.js';
import { listCardsByIds } from '../shared/repositories/listings-repository.js';
import { findUserById } from '../shared/repositories/users-repository.js';
import {
  deleteUserWatch,
  findUserWatch,
  findWatchableListing,
  findWatchById,
  insertWatchWithinLimit,
  listUserWatches,
  turnWatchNoticesOff,
  updateUserWatch,
  type WatchListRow,
  type WatchRow,
} from '../shared/repositories/watchlist-repository.js';
import { firstDueAt, outcomeText, parseListingId, validateWatchSettings, WATCH_MESSAGES, type WatchInput, type WatchSettings } from './watch-rules.js';
import { verifyWatchToken, watchLinkKey } from './watch-unsubscribe.js';

export type WatchItem = ListingCard & {
  watch_id: number;
  listing_id: number;
  listing_status: ListingStatus;
  remind_before_minutes: RemindBeforeMinutes;
  max_price: number | null;
  /** The maximum is the lot's Good limit and follows it when the lot is rescored (false: the buyer's own, or none). */
  max_price_follows_good: boolean;
  delivery_method: DeliveryMethod;
  notify: boolean;
  watched_at: string;
  /** Our fair value: the one shown while the lot was open, once it closed. */
  fair_value: number | null;
  /** A sold lot's final price; null while open, and for lots closed unsold or withdrawn. */
  final_price: number | null;
  /** How it ended, in words ("Sold for $41,000 — 12% under our fair value of $46,500"); null while open. */
  outcome: string | null;
  next_notice_at: string | null;
  notices: {
    reminder_sent_at: string | null;
    price_notice_sent_at: string | null;
    closed_notice_sent_at: string | null;
    gone_notice_sent_at: string | null;
    last_error: string | null;
  };
};

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export class WatchlistService {
  constructor(private readonly ctx: AppContext) {}

  private get db() {
    return this.ctx.database.db;
  }

  /** Open lots first, soonest close first; then closed ones, latest close first. */
  async list(userId: number): Promise<WatchItem[]> {
    const rows = await listUserWatches(this.db, userId);
    const cards = new Map((await listCardsByIds(this.db, rows.map((r) => r.listingId))).map((c) => [c.id, toCard(c)]));
    const items = rows.flatMap((r) => {
      const card = cards.get(r.listingId);
      return card ? [toItem(r, card)] : [];
    });
    const endOf = (i: WatchItem) => (i.auction_end_date ? Date.parse(i.auction_end_date) : Number.MAX_SAFE_INTEGER);
    return items.sort((a, b) => {
      const openA = a.listing_status === 'open' ? 0 : 1;
      const openB = b.listing_status === 'open' ? 0 : 1;
      if (openA !== openB) return openA - openB;
      return openA === 0 ? endOf(a) - endOf(b) : endOf(b) - endOf(a);
    });
  }

  private async item(userId: number, listingId: number): Promise<WatchItem> {
    const found = (await this.list(userId)).find((i) => i.listing_id === listingId);
    if (!found) throw notFound();
    return found;
  }

  private validate(input: WatchInput, base?: WatchSettings): WatchSettings {
    const result = validateWatchSettings(input, base);
    if (!result.ok) throw new ValidationError(result.errors);
    return result.settings;
  }

  /** Premium features are judged only where this request turns them on. */
  private async assertPlan(userId: number, plan: Entitlements, settings: WatchSettings, base?: WatchSettings): Promise<void> {
    if (settings.deliveryMethod === 'sms' && base?.deliveryMethod !== 'sms') {
      if (!plan.sms) throw forbidden(WATCH_MESSAGES.smsPremium);
      if (!toE164((await findUserById(this.db, userId))?.phone)) throw ValidationError.field('delivery_method', WATCH_MESSAGES.phoneRequired);
    }
    if (settings.maxPrice !== null && settings.maxPrice !== (base?.maxPrice ?? null) && !plan.priceRiseNotices) throw forbidden(WATCH_MESSAGES.pricePremium);
    if (settings.maxPriceFollowsGood && !base?.maxPriceFollowsGood && !plan.priceRiseNotices) throw forbidden(WATCH_MESSAGES.pricePremium);
  }

  /** A maximum that follows the Good limit is the lot's Good limit now (null while no bid can be Good). */
  private withGoodLimit(settings: WatchSettings, listing: { goodBidLimit: number | null }): WatchSettings {
    return settings.maxPriceFollowsGood ? { ...settings, maxPrice: listing.goodBidLimit } : settings;
  }

  async create(userId: number, input: WatchInput): Promise<WatchItem> {
    const listingId = parseListingId(input.listing_id);
    const plan = await entitlementsOf(this.db, userId);
    // The maximum defaults to the lot's Good limit where the plan has price notices, unless the
    // buyer gives their own (or none, or declines it).
    const byDefault = plan.priceRiseNotices && input.max_price === undefined && (input.follow_good_limit ?? null) === null;
    const validated = this.validate(byDefault ? { ...input, follow_good_limit: true } : input);
    if (listingId === null) throw ValidationError.field('listing_id', WATCH_MESSAGES.listingRequired);
    const listing = await findWatchableListing(this.db, listingId);
    if (!listing) throw notFound();
    const settings = this.withGoodLimit(validated, listing);
    await this.assertPlan(userId, plan, settings);
    const now = new Date();
    const dueAt = firstDueAt(freshState(settings), listing, { priceRiseNotices: plan.priceRiseNotices, now });
    const row = await insertWatchWithinLimit(this.db, { userId, listingId, settings, dueAt }, plan.maxWatchedLots);
    if (row === 'exists') throw new HttpError(409, WATCH_MESSAGES.alreadyWatched);
    if (row === 'limit') throw forbidden(WATCH_MESSAGES.watchLimit(plan.maxWatchedLots ?? 0));
    return this.item(userId, listingId);
  }

  async update(userId: number, listingId: number, input: WatchInput & { notify?: boolean | null }): Promise<WatchItem> {
    const existing = await findUserWatch(this.db, userId, listingId);
    if (!existing) throw notFound();
    const base = settingsOf(existing);
    const plan = await entitlementsOf(this.db, userId);
    const listing = await findWatchableListing(this.db, listingId);
    if (!listing) throw notFound();
    const settings = this.withGoodLimit(this.validate(input, base), listing);
    await this.assertPlan(userId, plan, settings, base);
    const notify = input.notify ?? existing.notify;
    // A new lead or maximum re-arms what it governs; the dispatcher decides from the new state.
    const dueAt = firstDueAt({ ...existing, ...settings, notify }, listing, { priceRiseNotices: plan.priceRiseNotices, now: new Date() });
    const row = await updateUserWatch(this.db, userId, listingId, { ...settings, notify, dueAt });
    if (!row) throw notFound();
    return this.item(userId, listingId);
  }

  async remove(userId: number, listingId: number): Promise<void> {
    if (!(await deleteUserWatch(this.db, userId, listingId))) throw notFound();
  }

  private watchOf(token: string): number | null {
    return verifyWatchToken(watchLinkKey(this.ctx.config), token);
  }

  /** What a signed link names (the confirm page; changes nothing); null for a bad or unknown token. */
  async unsubscribeTarget(token: string): Promise<{ title: string; notify: boolean } | null> {
    const watchId = this.watchOf(token);
    const row = watchId === null ? undefined : await findWatchById(this.db, watchId);
    if (!row) return null;
    const listing = (await listCardsByIds(this.db, [row.listingId]))[0];
    return { title: listing?.title ?? 'this lot', notify: row.notify };
  }

  /** The one-click POST or the confirm button: no more messages for this watch. */
  async unsubscribe(token: string): Promise<{ title: string } | null> {
    const target = await this.unsubscribeTarget(token);
    if (!target) return null;
    await turnWatchNoticesOff(this.db, this.watchOf(token)!);
    return { title: target.title };
  }
}

function settingsOf(row: WatchRow): WatchSettings {
  return { remindBeforeMinutes: row.remindBeforeMinutes, maxPrice: row.maxPrice, deliveryMethod: row.deliveryMethod, maxPriceFollowsGood: row.maxPriceFollowsGood };
}

function freshState(settings: WatchSettings) {
  return { ...settings, notify: true, reminderEndAt: null, priceNoticeMax: null, closedNoticeAt: null, goneNoticeAt: null };
}

function toItem(r: WatchListRow, card: ListingCard): WatchItem {
  const closed = r.status !== 'open';
  const fairValue = closed ? (r.outcomeFairValue ?? r.fairValue) : r.fairValue;
  return {
    ...card,
    watch_id: r.id,
    listing_id: r.listingId,
    listing_status: r.status,
    remind_before_minutes: r.remindBeforeMinutes,
    max_price: r.maxPrice,
    max_price_follows_good: r.maxPriceFollowsGood,
    delivery_method: r.deliveryMethod,
    notify: r.notify,
    watched_at: r.createdAt.toISOString(),
    fair_value: fairValue,
    final_price: r.finalPrice,
    outcome: closed ? outcomeText(r.status, r.finalPrice, fairValue, formatUsd) : null,
    next_notice_at: iso(r.dueAt),
    notices: {
      reminder_sent_at: iso(r.reminderSentAt),
      price_notice_sent_at: iso(r.priceNoticeAt),
      closed_notice_sent_at: iso(r.closedNoticeAt),
      gone_notice_sent_at: iso(r.goneNoticeAt),
      last_error: r.lastNoticeError,
    },
  };
}
