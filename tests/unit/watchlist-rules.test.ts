import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../services/alerts/alert-messages.js';
import { leadText, renderWatchEmail, renderWatchSms, watchMessageKey } from '../../services/watchlist/watch-messages.js';
import {
  evaluateWatch,
  firstDueAt,
  GONE_AFTER_MS,
  outcomeText,
  reminderCovers,
  validateWatchSettings,
  type WatchState,
  type WatchedListing,
} from '../../services/watchlist/watch-rules.js';
import { signWatchToken, verifyWatchToken, watchUnsubscribeKey } from '../../services/watchlist/watch-unsubscribe.js';
import { signUnsubscribeToken, unsubscribeKey } from '../../services/alerts/unsubscribe-tokens.js';

const T0 = new Date('2026-11-26T12:00:00Z');
const min = 60_000;
const at = (minutes: number) => new Date(T0.getTime() + minutes * min);
const watch = (over: Partial<WatchState> = {}): WatchState => ({
  remindBeforeMinutes: 60,
  maxPrice: null,
  notify: true,
  reminderEndAt: null,
  priceNoticeMax: null,
  closedNoticeAt: null,
  goneNoticeAt: null,
  ...over,
});
const open = (endMinutes: number, price = 30_000): WatchedListing => ({ status: 'open', auctionEndAt: at(endMinutes), priceUsd: price });

describe('watch settings', () => {
  it('defaults to a 1-hour reminder by e-mail and accepts only the four leads', () => {
    expect(validateWatchSettings({})).toEqual({ ok: true, settings: { remindBeforeMinutes: 60, maxPrice: null, deliveryMethod: 'email', maxPriceFollowsGood: false } });
    for (const lead of [15, 60, 180, 1440, '180']) expect(validateWatchSettings({ remind_before_minutes: lead }).ok).toBe(true);
    for (const lead of [0, 30, 61, -15, 'soon', 1e9]) expect(validateWatchSettings({ remind_before_minutes: lead }).ok).toBe(false);
  });
  it('reads a maximum price in dollars and keeps what PATCH does not set', () => {
    expect(validateWatchSettings({ max_price: '$41,000' })).toMatchObject({ settings: { maxPrice: 41_000 } });
    expect(validateWatchSettings({ max_price: 'lots' }).ok).toBe(false);
    expect(validateWatchSettings({ max_price: -1 }).ok).toBe(false);
    const base = { remindBeforeMinutes: 15 as const, maxPrice: 5000, deliveryMethod: 'sms' as const, maxPriceFollowsGood: false };
    expect(validateWatchSettings({}, base)).toEqual({ ok: true, settings: base });
    expect(validateWatchSettings({ max_price: null }, base)).toMatchObject({ settings: { maxPrice: null, remindBeforeMinutes: 15 } });
  });
  it('follows the Good limit until the buyer sets their own maximum (issue 38)', () => {
    const following = { remindBeforeMinutes: 60 as const, maxPrice: 6200, deliveryMethod: 'email' as const, maxPriceFollowsGood: true };
    expect(validateWatchSettings({ follow_good_limit: true })).toMatchObject({ settings: { maxPriceFollowsGood: true } });
    // a PATCH of the lead keeps it following; the buyer's own price ends it; declining it clears the maximum
    expect(validateWatchSettings({ remind_before_minutes: 15 }, following)).toMatchObject({ settings: { maxPriceFollowsGood: true, maxPrice: 6200 } });
    expect(validateWatchSettings({ max_price: 7000 }, following)).toMatchObject({ settings: { maxPriceFollowsGood: false, maxPrice: 7000 } });
    expect(validateWatchSettings({ follow_good_limit: false }, following)).toMatchObject({ settings: { maxPriceFollowsGood: false, maxPrice: null } });
    // both at once is a question the buyer must answer
    expect(validateWatchSettings({ follow_good_limit: true, max_price: 7000 })).toMatchObject({ ok: false, errors: { follow_good_limit: [expect.any(String)] } });
  });
});

describe('which notices are due', () => {
  it('reminds from end − lead until the close, and says when to look next', () => {
    expect(evaluateWatch(watch(), open(120), { priceRiseNotices: false, now: T0 })).toEqual({ notices: [], nextDueAt: at(60) });
    expect(evaluateWatch(watch(), open(120), { priceRiseNotices: false, now: at(60) }).notices).toEqual(['reminder']);
    // Watched with less time left than the lead: reminded at once.
    expect(firstDueAt(watch(), open(10), { priceRiseNotices: false, now: T0 })).toEqual(T0);
  });
  it('sends the reminder once per end time; a soft close does not repeat it, a postponement does', () => {
    const sent = watch({ reminderEndAt: at(120) });
    expect(evaluateWatch(sent, open(120), { priceRiseNotices: false, now: at(61) }).notices).toEqual([]);
    expect(reminderCovers(at(120), at(122), 60)).toBe(true);
    expect(evaluateWatch(sent, open(122), { priceRiseNotices: false, now: at(63) }).notices).toEqual([]);
    // Postponed by a day: a new reminder an hour before the new close.
    expect(evaluateWatch(sent, open(120 + 1440), { priceRiseNotices: false, now: at(70) })).toEqual({ notices: [], nextDueAt: at(60 + 1440) });
  });
  it('moves the reminder with the end time when it was not sent yet', () => {
    expect(evaluateWatch(watch(), open(180), { priceRiseNotices: false, now: T0 }).nextDueAt).toEqual(at(120));
    expect(evaluateWatch(watch(), open(240), { priceRiseNotices: false, now: T0 }).nextDueAt).toEqual(at(180));
  });
  it('tells premium buyers once per maximum when the price passes it', () => {
    const w = watch({ maxPrice: 40_000 });
    expect(evaluateWatch(w, open(600, 40_000), { priceRiseNotices: true, now: T0 }).notices).toEqual([]);
    expect(evaluateWatch(w, open(600, 40_001), { priceRiseNotices: true, now: T0 }).notices).toEqual(['price_rise']);
    expect(evaluateWatch(w, open(600, 40_001), { priceRiseNotices: false, now: T0 }).notices).toEqual([]);
    expect(evaluateWatch({ ...w, priceNoticeMax: 40_000 }, open(600, 45_000), { priceRiseNotices: true, now: T0 }).notices).toEqual([]);
    // A raised maximum is armed again.
    expect(evaluateWatch({ ...w, maxPrice: 44_000, priceNoticeMax: 40_000 }, open(600, 45_000), { priceRiseNotices: true, now: T0 }).notices).toEqual(['price_rise']);
  });
  it('tells once when the bid passes a maximum that follows the Good limit, however the limit moves', () => {
    const w = watch({ maxPrice: 6_200, maxPriceFollowsGood: true });
    expect(evaluateWatch(w, open(600, 6_200), { priceRiseNotices: true, now: T0 }).notices).toEqual([]);
    expect(evaluateWatch(w, open(600, 6_400), { priceRiseNotices: true, now: T0 }).notices).toEqual(['price_rise']);
    // told: a rescore moving the limit (6,200 → 6,100) does not tell again
    expect(evaluateWatch({ ...w, maxPrice: 6_100, priceNoticeMax: 6_200, priceNoticeAt: T0 }, open(600, 6_400), { priceRiseNotices: true, now: T0 }).notices).toEqual([]);
    expect(watchMessageKey(7, 'price_rise', at(60), 'good')).toBe(`watch:7:price_rise-good:${at(60).getTime() / 1000}`);
  });
  it('says "now $6,400: above the Good price $6,200" by e-mail and in one SMS segment', () => {
    const input = { kind: 'price_rise' as const, watchId: 7, listing: { id: 42, slug: 'cat-988b', title: 'Caterpillar 988B wheel loader '.repeat(6), status: 'open' as const, priceUsd: 6_400, dealScore: 520, fairValue: 9_775, auctionEndAt: at(600), finalPrice: null }, maxPrice: 6_200, maxPriceFollowsGood: true, appUrl: 'http://app', now: T0 };
    expect(renderWatchEmail({ ...input, unsubscribeUrl: 'http://app/u?t=1' }).text).toContain('now $6,400: above the Good price $6,200');
    const sms = renderWatchSms(input);
    expect(sms).toContain('Now $6,400: above the Good price $6,200');
    expect(sms.length).toBeLessThanOrEqual(160);
  });
  it('reports the close once, and a lot that vanished once', () => {
    const closed: WatchedListing = { status: 'sold', auctionEndAt: at(-5), priceUsd: 41_000 };
    expect(evaluateWatch(watch({ reminderEndAt: at(-5) }), closed, { priceRiseNotices: false, now: T0 })).toEqual({ notices: ['closed'], nextDueAt: null });
    expect(evaluateWatch(watch({ closedNoticeAt: T0 }), closed, { priceRiseNotices: false, now: T0 })).toEqual({ notices: [], nextDueAt: null });
    const stale = open(-GONE_AFTER_MS / min);
    expect(evaluateWatch(watch({ reminderEndAt: stale.auctionEndAt }), stale, { priceRiseNotices: false, now: T0 }).notices).toEqual(['gone']);
    expect(evaluateWatch(watch({ reminderEndAt: stale.auctionEndAt, goneNoticeAt: T0 }), stale, { priceRiseNotices: false, now: at(600) })).toEqual({ notices: [], nextDueAt: null });
  });
  it('sends nothing for a watch whose messages were turned off', () => {
    expect(evaluateWatch(watch({ notify: false }), open(30), { priceRiseNotices: true, now: T0 })).toEqual({ notices: [], nextDueAt: null });
  });
});

describe('how it ended', () => {
  it('puts the final price beside our fair value', () => {
    expect(outcomeText('sold', 41_000, 46_600, formatUsd)).toBe('Sold for $41,000 — 12% under our fair value of $46,600');
    expect(outcomeText('sold', 55_000, 50_000, formatUsd)).toBe('Sold for $55,000 — 10% over our fair value of $50,000');
    expect(outcomeText('sold', 41_000, null, formatUsd)).toBe('Sold for $41,000');
    expect(outcomeText('closed', null, 50_000, formatUsd)).toMatch(/not sold/);
    expect(outcomeText('withdrawn', null, 50_000, formatUsd)).toMatch(/Withdrawn/);
  });
});

describe('watch messages', () => {
  const listing = { id: 42, slug: 'cat-320', title: '<b>CAT 320</b>\u0007 excavator', status: 'open' as const, priceUsd: 30_000, dealScore: 720, fairValue: 50_000, auctionEndAt: at(60), finalPrice: null };
  it('keys a notice by watch, kind and end time (and maximum for price notices)', () => {
    expect(watchMessageKey(7, 'reminder', at(60), null)).toBe(`watch:7:reminder:${at(60).getTime() / 1000}`);
    expect(watchMessageKey(7, 'reminder', at(61), null)).not.toBe(watchMessageKey(7, 'reminder', at(60), null));
    expect(watchMessageKey(7, 'price_rise', at(60), 40_000)).not.toBe(watchMessageKey(7, 'price_rise', at(60), 45_000));
  });
  it('renders the reminder with the time left, escaped, with the unsubscribe link', () => {
    const email = renderWatchEmail({ kind: 'reminder', watchId: 7, listing, maxPrice: null, appUrl: 'http://app', now: T0, unsubscribeUrl: 'http://app/u?t=1' });
    expect(email.subject).toBe('Closes in 1 hour: <b>CAT 320</b> excavator — now $30,000');
    expect(email.html).toContain('&lt;b&gt;CAT 320&lt;/b&gt;');
    expect(email.html).not.toContain('<b>CAT');
    expect(email.text).toContain('Stop messages for this lot: http://app/u?t=1');
    expect(leadText(at(90), T0)).toBe('1 hour 30 min');
    expect(leadText(at(1440), T0)).toBe('1 day');
  });
  it('tells how it ended and fits an SMS in one segment', () => {
    const sold = { ...listing, status: 'sold' as const, finalPrice: 41_000, fairValue: 46_600 };
    expect(renderWatchEmail({ kind: 'closed', watchId: 7, listing: sold, maxPrice: null, appUrl: 'http://app', now: T0, unsubscribeUrl: 'u' }).subject).toContain('Sold for $41,000 — 12% under our fair value');
    const sms = renderWatchSms({ kind: 'reminder', watchId: 7, listing: { ...listing, title: 'x'.repeat(400) }, maxPrice: null, appUrl: 'http://app', now: T0 });
    expect(sms.length).toBeLessThanOrEqual(159);
    expect(sms).toContain('http://app/d/16');
  });
});

describe('watch unsubscribe tokens', () => {
  it('verifies its own tokens only, never an alert’s', () => {
    const key = watchUnsubscribeKey('secret');
    expect(verifyWatchToken(key, signWatchToken(key, 123))).toBe(123);
    expect(verifyWatchToken(watchUnsubscribeKey('other'), signWatchToken(key, 123))).toBeNull();
    expect(verifyWatchToken(key, signUnsubscribeToken(unsubscribeKey('secret'), 123))).toBeNull();
    expect(verifyWatchToken(key, 'garbage')).toBeNull();
  });
});
