/**
 * The watchlist's rules (issue 31, PRODUCT.md "Watchlist") as pure functions: what a watch may
 * contain, and — given a watched lot's state, its listing and the clock — which notices are due
 * now and when to look again. The API and the dispatcher are thin shells around these.
 */
import type { DeliveryMethod } from '../../db/schema/alerts.js';
import type { ListingStatus } from '../../db/schema/listings.js';
import { REMIND_BEFORE_MINUTES, type RemindBeforeMinutes } from '../../db/schema/watchlist.js';
import type { WatchSettings } from '../shared/repositories/watchlist-repository.js';

export const DEFAULT_REMIND_BEFORE: RemindBeforeMinutes = 60;
export const MAX_WATCH_PRICE = 1_000_000_000;
/**
 * An open lot whose end is this far behind us was not seen closing: its source no longer lists
 * it (or stopped answering for it). Reported once; the ending-soon crawls re-check lots up to an
 * hour past their end, so a lot still open after 6 h is not coming back.
 */
export const GONE_AFTER_MS = 6 * 3600_000;

export const WATCH_MESSAGES = {
  listingRequired: 'Choose a listing to watch.',
  remindBefore: `Choose one of ${REMIND_BEFORE_MINUTES.join(', ')} minutes before the close.`,
  maxPrice: 'Enter a price from 0 to 1,000,000,000 US dollars, or leave it empty.',
  alreadyWatched: 'You already watch this lot.',
  watchLimit: (max: number) => `Your free plan allows up to ${max} watched lots. Upgrade to Premium to watch more.`,
  smsPremium: 'SMS reminders are a Premium feature. Upgrade to Premium, or choose email delivery.',
  pricePremium: 'Price-rise notices are a Premium feature. Upgrade to Premium to set a maximum price.',
  goodOrOwn: 'Choose your own maximum price or the Good price, not both.',
  phoneRequired: 'Add a mobile phone number to your profile to get SMS reminders.',
} as const;

/** What the API accepts (after zod has checked the types); every field optional for PATCH. */
export type WatchInput = {
  listing_id?: number | string | null;
  remind_before_minutes?: number | string | null;
  max_price?: number | string | null;
  delivery_method?: DeliveryMethod | null;
  /** "Remind me while the bid is under my Good price": the maximum is the lot's Good limit and follows it. */
  follow_good_limit?: boolean | null;
};

export type { WatchSettings } from '../shared/repositories/watchlist-repository.js';

function wholeOrNull(value: number | string | null | undefined): number | null | 'bad' {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'number' ? String(value) : value.trim().replace(/[$,\s]/g, '');
  if (text === '') return null;
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return 'bad';
  const n = Number(text);
  return Number.isFinite(n) && n <= MAX_WATCH_PRICE ? n : 'bad';
}

/** Validates the settings a request sets, over `base` (PATCH) or the defaults (POST). */
export function validateWatchSettings(
  input: WatchInput,
  base?: WatchSettings,
): { ok: true; settings: WatchSettings } | { ok: false; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  let remindBeforeMinutes = base?.remindBeforeMinutes ?? DEFAULT_REMIND_BEFORE;
  if (input.remind_before_minutes !== undefined && input.remind_before_minutes !== null && input.remind_before_minutes !== '') {
    const n = Number(input.remind_before_minutes);
    if ((REMIND_BEFORE_MINUTES as readonly number[]).includes(n)) remindBeforeMinutes = n as RemindBeforeMinutes;
    else errors.remind_before_minutes = [WATCH_MESSAGES.remindBefore];
  }
  let maxPrice = base?.maxPrice ?? null;
  let maxPriceFollowsGood = base?.maxPriceFollowsGood ?? false;
  if (input.max_price !== undefined) {
    const parsed = wholeOrNull(input.max_price);
    if (parsed === 'bad') errors.max_price = [WATCH_MESSAGES.maxPrice];
    else {
      // the buyer's own maximum (or none): it no longer follows the Good limit
      maxPrice = parsed;
      maxPriceFollowsGood = false;
    }
  }
  if (input.follow_good_limit === true) {
    if (input.max_price !== undefined && input.max_price !== null && input.max_price !== '') errors.follow_good_limit = [WATCH_MESSAGES.goodOrOwn];
    maxPriceFollowsGood = true;
  } else if (input.follow_good_limit === false && maxPriceFollowsGood) {
    maxPriceFollowsGood = false;
    if (input.max_price === undefined) maxPrice = null;
  }
  const deliveryMethod = input.delivery_method ?? base?.deliveryMethod ?? 'email';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, settings: { remindBeforeMinutes, maxPrice, deliveryMethod, maxPriceFollowsGood } };
}

/** A listing id from the body, or null when it is missing or not one. */
export function parseListingId(value: WatchInput['listing_id']): number | null {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 2_147_483_647 ? n : null;
}

export type NoticeKind = 'reminder' | 'price_rise' | 'closed' | 'gone';

/** The watched lot's state the rules read (a row of `watched_lots`). */
export type WatchState = {
  remindBeforeMinutes: number;
  maxPrice: number | null;
  notify: boolean;
  reminderEndAt: Date | null;
  priceNoticeMax: number | null;
  closedNoticeAt: Date | null;
  goneNoticeAt: Date | null;
  /** A maximum that follows the Good limit moves with every rescore: its passing is told once (priceNoticeAt). */
  maxPriceFollowsGood?: boolean;
  priceNoticeAt?: Date | null;
};

export type WatchedListing = { status: ListingStatus; auctionEndAt: Date | null; priceUsd: number | null };

export function reminderDueAt(end: Date, remindBeforeMinutes: number): Date {
  return new Date(end.getTime() - remindBeforeMinutes * 60_000);
}

/**
 * Whether the reminder already sent covers this end time: a soft close or a short extension
 * (less than the reminder's own lead) moves the end a little and sends no second reminder; a lot
 * postponed by more than that is reminded again before its new close.
 */
export function reminderCovers(reminderEndAt: Date | null, end: Date, remindBeforeMinutes: number): boolean {
  return reminderEndAt !== null && Math.abs(end.getTime() - reminderEndAt.getTime()) < remindBeforeMinutes * 60_000;
}

export type WatchVerdict = {
  /** The notices due now, in the order they are sent. */
  notices: NoticeKind[];
  /** When to look at the row again (null: nothing can become due without the listing changing). */
  nextDueAt: Date | null;
};

/**
 * Which notices are due at `now`, and when the next one could be:
 *   - closed (status sold/closed/withdrawn): the closing notice, once; nothing after it;
 *   - reminder: from `end − remind_before` until the end, once per end time (see reminderCovers);
 *     a lot watched with less time left than the lead is reminded at once;
 *   - price_rise (premium): the price has passed the maximum, once per maximum (once per lot for
 *     a maximum that follows the Good limit: it moves on every rescore);
 *   - gone: still open GONE_AFTER_MS past its end: reported once.
 * A watch whose notices are off (`notify` false) is never due.
 */
export function evaluateWatch(watch: WatchState, listing: WatchedListing, opts: { priceRiseNotices: boolean; now: Date }): WatchVerdict {
  const now = opts.now.getTime();
  if (!watch.notify) return { notices: [], nextDueAt: null };
  if (listing.status !== 'open') {
    return { notices: watch.closedNoticeAt === null ? ['closed'] : [], nextDueAt: null };
  }
  const notices: NoticeKind[] = [];
  const later: number[] = [];
  const end = listing.auctionEndAt;
  if (end !== null && !reminderCovers(watch.reminderEndAt, end, watch.remindBeforeMinutes)) {
    const due = reminderDueAt(end, watch.remindBeforeMinutes).getTime();
    if (now >= due && now < end.getTime()) notices.push('reminder');
    else if (now < due) later.push(due);
  }
  if (
    opts.priceRiseNotices &&
    watch.maxPrice !== null &&
    listing.priceUsd !== null &&
    listing.priceUsd > watch.maxPrice &&
    (watch.maxPriceFollowsGood ? (watch.priceNoticeAt ?? null) === null : watch.priceNoticeMax !== watch.maxPrice)
  ) {
    notices.push('price_rise');
  }
  if (end !== null && watch.goneNoticeAt === null) {
    const goneAt = end.getTime() + GONE_AFTER_MS;
    if (now >= goneAt) notices.push('gone');
    else later.push(goneAt);
  }
  return { notices, nextDueAt: later.length > 0 ? new Date(Math.min(...later)) : null };
}

/** When a new or changed watch is first due: now if a notice is due already, else its next time. */
export function firstDueAt(watch: WatchState, listing: WatchedListing, opts: { priceRiseNotices: boolean; now: Date }): Date | null {
  const verdict = evaluateWatch(watch, listing, opts);
  return verdict.notices.length > 0 ? opts.now : verdict.nextDueAt;
}

/** How a closed lot ended, in words: "Sold for $41,000 — 12% under our fair value". */
export function outcomeText(status: ListingStatus, finalPrice: number | null, fairValue: number | null, formatUsd: (n: number) => string): string {
  if (status === 'withdrawn') return 'Withdrawn: not sold';
  if (status === 'open') return 'Still open';
  if (finalPrice === null || finalPrice <= 0) return 'Closed: not sold (or no final price shown)';
  const base = `Sold for ${formatUsd(finalPrice)}`;
  if (fairValue === null || fairValue <= 0) return base;
  const gap = Math.round((finalPrice / fairValue - 1) * 100);
  if (gap === 0) return `${base} — at our fair value of ${formatUsd(fairValue)}`;
  return `${base} — ${Math.abs(gap)}% ${gap < 0 ? 'under' : 'over'} our fair value of ${formatUsd(fairValue)}`;
}
