import { describe, expect, it } from 'vitest';
import { dealLevel, dealScoreBadge, displayScore } from './deal-score.js';
import { formatCardPrice, formatDetailPrice, formatMoney, parsePriceInput, priceRangeText } from './format-price.js';
import { passwordStrength } from './password-strength.js';
import { redirectTarget } from './safe-redirect.js';
import { auctionEndBadgeText, timeLeft } from './time-left.js';

describe('deal score (spec §4)', () => {
  it('divides by 10 rounding up and clamps to 0-100', () => {
    expect(displayScore(870)).toBe(87);
    expect(displayScore(871)).toBe(88);
    expect(displayScore(1)).toBe(1);
    expect(displayScore(0)).toBe(0);
    expect(displayScore(1500)).toBe(100);
    expect(displayScore(-30)).toBe(0);
  });
  it('defaults to 50 when the score is not a number', () => {
    for (const v of [null, undefined, 'high', Number.NaN, Infinity]) expect(displayScore(v)).toBe(50);
  });
  it('levels at 80, 60 and 40', () => {
    expect([100, 80, 79, 60, 59, 40, 39, 0].map(dealLevel)).toEqual(['excellent', 'excellent', 'good', 'good', 'fair', 'fair', 'poor', 'poor']);
  });
  it("badge text is '{score} • {label}'", () => {
    expect(dealScoreBadge(800).text).toBe('80 • Excellent Deal');
    expect(dealScoreBadge(791).text).toBe('80 • Excellent Deal');
    expect(dealScoreBadge(790).text).toBe('79 • Good Deal');
    expect(dealScoreBadge(450).text).toBe('45 • Fair Deal');
    expect(dealScoreBadge(120).text).toBe('12 • Poor Deal');
    expect(dealScoreBadge(null).text).toBe('50 • Fair Deal');
  });
});

describe('time left (spec §4, §9)', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const H = 3_600_000;
  it("shows 'Ended' once past the end", () => {
    expect(timeLeft(at(-1), now)).toEqual({ state: 'ended', text: 'Ended', warning: false });
    expect(timeLeft(at(0), now).text).toBe('Ended');
  });
  it("shows '{d}d {h}h' with a day or more left", () => {
    expect(timeLeft(at(3 * 24 * H + 5 * H + 59_000), now)).toEqual({ state: 'open', text: '3d 5h', warning: false });
    expect(timeLeft(at(24 * H), now)).toEqual({ state: 'open', text: '1d 0h', warning: false });
  });
  it("shows hours only, with the warning, under a day", () => {
    expect(timeLeft(at(24 * H - 1), now)).toEqual({ state: 'open', text: '23h', warning: true });
    expect(timeLeft(at(30 * 60_000), now)).toEqual({ state: 'open', text: '0h', warning: true });
  });
  it('has no time left without a (readable) end date', () => {
    expect(timeLeft(null, now).state).toBe('none');
    expect(timeLeft('not a date', now).state).toBe('none');
  });
  it("card badge: 'Auction Ended', 'No end date' or '{time} left'", () => {
    expect(auctionEndBadgeText(at(-H), now)).toBe('Auction Ended');
    expect(auctionEndBadgeText(null, now)).toBe('No end date');
    expect(auctionEndBadgeText(at(2 * 24 * H + 3 * H), now)).toBe('2d 3h left');
    expect(auctionEndBadgeText(at(5 * H + 10), now)).toBe('5h left');
  });
});

describe('prices (spec §9)', () => {
  it('formats whole US dollars', () => {
    expect(formatMoney(84500)).toBe('$84,500');
    expect(formatMoney(84500.6)).toBe('$84,501');
    expect(formatCardPrice(1234.4, 'USD')).toBe('$1,234');
  });
  it("says 'Price on request' on cards and 'Price not available' on the detail", () => {
    expect(formatCardPrice(null)).toBe('Price on request');
    expect(formatDetailPrice(null)).toBe('Price not available');
    expect(formatDetailPrice(undefined, 'EUR')).toBe('Price not available');
  });
  it("uses the listing's currency on the detail, dollars by default", () => {
    expect(formatDetailPrice(5000, 'CAD')).toBe('CA$5,000');
    expect(formatDetailPrice(5000, null)).toBe('$5,000');
    expect(formatDetailPrice(5000, 'nonsense')).toBe('$5,000');
  });
  it('price range text', () => {
    expect(priceRangeText(10000, 50000)).toBe('$10,000 - $50,000');
    expect(priceRangeText(10000, null)).toBe('Above $10,000');
    expect(priceRangeText(undefined, 50000)).toBe('Below $50,000');
    expect(priceRangeText(null, null)).toBe('Any price');
    expect(priceRangeText(0, 0)).toBe('$0 - $0');
  });
  it('price filters are sent as whole numbers', () => {
    expect(parsePriceInput('12500.75')).toBe(12500);
    expect(parsePriceInput(' $1,000 ')).toBe(1000);
    expect(parsePriceInput('')).toBeNull();
    expect(parsePriceInput('abc')).toBeNull();
    expect(parsePriceInput('-5')).toBeNull();
  });
});

describe('password strength (spec §5)', () => {
  it('scores length, lowercase, uppercase, digit and symbol', () => {
    expect(passwordStrength('')).toEqual({ score: 0, label: 'Weak' });
    expect(passwordStrength('abc')).toEqual({ score: 1, label: 'Weak' });
    expect(passwordStrength('abcdefgh')).toEqual({ score: 2, label: 'Weak' });
    expect(passwordStrength('abcdefgH')).toEqual({ score: 3, label: 'Fair' });
    expect(passwordStrength('abcdefH1')).toEqual({ score: 4, label: 'Good' });
    expect(passwordStrength('abcdeH1!')).toEqual({ score: 5, label: 'Strong' });
    expect(passwordStrength('aH1!')).toEqual({ score: 4, label: 'Good' });
  });
});

describe('redirect after sign-in', () => {
  it('returns to the remembered in-app page only', () => {
    expect(redirectTarget({ pathname: '/deal/cat-320', search: '?a=1', hash: '#x' })).toBe('/deal/cat-320?a=1#x');
    expect(redirectTarget(undefined)).toBe('/dashboard');
    expect(redirectTarget({ pathname: '//evil.example' })).toBe('/dashboard');
    expect(redirectTarget({ pathname: 'https://evil.example' })).toBe('/dashboard');
    expect(redirectTarget({ pathname: '/login' })).toBe('/dashboard');
  });
});
