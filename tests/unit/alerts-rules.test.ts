import { describe, expect, it } from 'vitest';
import { alertMatches, badgeScore, levelRank, minimumBadge, notificationEvent, type MatchableListing } from '../../services/alerts/alert-matching.js';
import { keywordTerms, MESSAGES, planViolation, toE164, validateAlert, type AlertCriteria } from '../../services/alerts/alert-rules.js';
import { slotTime } from '../../services/matcher/digest-schedule.js';
import { distanceMiles } from '../../services/shared/geo/distance.js';
import { haulEstimate, weightClass } from '../../services/shared/rules/freight-rates.js';
import { digestMessageKey, instantMessageKey, parseAlertMessageKey } from '../../services/shared/rules/alert-message-keys.js';

describe('alert validation (spec §5)', () => {
  it('requires an equipment type with the spec’s message', () => {
    for (const equipment_type of [undefined, null, '', '   ']) {
      const result = validateAlert({ equipment_type });
      expect(result).toEqual({ ok: false, errors: { equipment_type: ['Please select an equipment type'] } });
    }
  });

  it('accepts category names and slugs, any-location/any-condition, empty prices, min above max', () => {
    const result = validateAlert({ equipment_type: 'wheel-loaders', state: 'any-location', condition: 'any-condition', price_min: '90000', price_max: 1000 });
    expect(result).toEqual({
      ok: true,
      criteria: { categoryId: 3, priceMin: 90000, priceMax: 1000, state: null, condition: null, deliveryMethod: 'email', frequency: 'instant', dealLevel: 'good', minDealScore: null, includeUnscored: false, keywords: null, keywordTerms: null, isActive: true, nearZip: null, nearLat: null, nearLon: null, radiusMiles: null, worthTheTrip: false },
    });
    const v = validateAlert({ equipment_type: 'Cranes', price_min: '', price_max: null, state: 'texas', condition: 'like new' });
    expect(v.ok && v.criteria).toMatchObject({ priceMin: null, priceMax: null, state: 'TX', condition: 'Like New' });
  });

  it('names every bad field', () => {
    const result = validateAlert({ equipment_type: 'Boats', price_min: 1.5, price_max: '-2', state: 'XX', condition: 'Mint', min_deal_score: 101, keywords: 'a '.repeat(150) });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors).sort()).toEqual(['condition', 'equipment_type', 'keywords', 'min_deal_score', 'price_max', 'price_min', 'state']);
  });

  it('merges a PATCH over the stored alert', () => {
    const base = validateAlert({ equipment_type: 'Excavators', price_min: 1000, state: 'TX' });
    if (!base.ok) throw new Error('base');
    const patched = validateAlert({ is_active: false, price_min: null }, base.criteria);
    expect(patched.ok && patched.criteria).toMatchObject({ categoryId: 1, priceMin: null, state: 'TX', isActive: false });
    expect(validateAlert({ equipment_type: '' }, base.criteria).ok).toBe(false);
  });

  it('splits keywords into lower-case distinct terms', () => {
    expect(keywordTerms('CAT  320D, "low hours" cat')).toEqual(['cat', '320d', 'low', 'hours']);
    expect(keywordTerms(' -- ')).toEqual([]);
  });
});

describe('plan rules', () => {
  const free = { maxAlerts: 5, sms: false, advancedFilters: false };
  const pro = { maxAlerts: null, sms: true, advancedFilters: true };
  it('free: 5 alerts, e-mail only, no advanced filters', () => {
    expect(planViolation(free, { creating: true, existingAlerts: 4, setsSms: false, setsAdvancedFilters: false })).toBeNull();
    expect(planViolation(free, { creating: true, existingAlerts: 5, setsSms: false, setsAdvancedFilters: false })).toBe(MESSAGES.alertLimit(5));
    expect(planViolation(free, { creating: false, existingAlerts: 9, setsSms: false, setsAdvancedFilters: false })).toBeNull();
    expect(planViolation(free, { creating: false, existingAlerts: 0, setsSms: true, setsAdvancedFilters: false })).toBe(MESSAGES.smsPremium);
    expect(planViolation(free, { creating: false, existingAlerts: 0, setsSms: false, setsAdvancedFilters: true })).toBe(MESSAGES.advancedPremium);
  });
  it('premium: unlimited, SMS, advanced filters', () => {
    expect(planViolation(pro, { creating: true, existingAlerts: 500, setsSms: true, setsAdvancedFilters: true })).toBeNull();
  });
  it('phones become E.164 (US by default)', () => {
    expect(toE164('(512) 555-0142')).toBe('+15125550142');
    expect(toE164('1-512-555-0142')).toBe('+15125550142');
    expect(toE164('+44 20 7946 0958')).toBe('+442079460958');
    expect(toE164('555-0142')).toBeNull();
    expect(toE164('')).toBeNull();
  });
});

describe('matching rule', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const alert: AlertCriteria = { categoryId: 1, priceMin: 10_000, priceMax: 50_000, state: 'TX', condition: 'Good', deliveryMethod: 'email', frequency: 'instant', dealLevel: 'good', minDealScore: 80, includeUnscored: false, keywords: 'cat', keywordTerms: ['cat'], isActive: true, nearZip: null, nearLat: null, nearLon: null, radiusMiles: null };
  const listing: MatchableListing = { categoryId: 1, priceUsd: 45_000, state: 'TX', condition: 'Good', dealScore: 791, status: 'open', auctionEndAt: new Date('2026-11-22T00:00:00Z'), title: 'CAT 320', make: null, model: null, description: '', lat: 29.7604, lon: -95.3698 };
  it('compares the badge (deal_score / 10 rounded up) with the minimum score', () => {
    expect(badgeScore(791)).toBe(80);
    expect(badgeScore(790)).toBe(79);
    expect(alertMatches(alert, listing, now)).toBe(true);
    expect(alertMatches(alert, { ...listing, dealScore: 790 }, now)).toBe(false);
    expect(alertMatches(alert, { ...listing, dealScore: null }, now)).toBe(false);
    expect(alertMatches({ ...alert, minDealScore: null }, { ...listing, dealScore: null }, now)).toBe(false);
    expect(alertMatches({ ...alert, minDealScore: null, includeUnscored: true }, { ...listing, dealScore: null }, now)).toBe(true);
  });
  it('deals only by default: good or better, or excellent only; unscored lots by opt-in', () => {
    const plain = { ...alert, minDealScore: null };
    expect(minimumBadge(plain)).toBe(60);
    expect(alertMatches(plain, { ...listing, dealScore: 591 }, now)).toBe(true); // badge 60: Good Deal
    expect(alertMatches(plain, { ...listing, dealScore: 590 }, now)).toBe(false); // badge 59: Fair Deal
    expect(alertMatches(plain, { ...listing, dealScore: 0 }, now)).toBe(false);
    const excellent = { ...plain, dealLevel: 'excellent' as const };
    expect(minimumBadge(excellent)).toBe(80);
    expect(alertMatches(excellent, { ...listing, dealScore: 790 }, now)).toBe(false);
    expect(alertMatches(excellent, { ...listing, dealScore: 791 }, now)).toBe(true);
    // premium's minimum replaces the level, either way
    expect(alertMatches({ ...excellent, minDealScore: 30 }, { ...listing, dealScore: 300 }, now)).toBe(true);
    expect(alertMatches({ ...plain, minDealScore: 0 }, { ...listing, dealScore: 0 }, now)).toBe(true);
    expect(alertMatches({ ...plain, minDealScore: 0 }, { ...listing, dealScore: null }, now)).toBe(false);
    expect(alertMatches({ ...plain, includeUnscored: true }, { ...listing, dealScore: null }, now)).toBe(true);
    expect(alertMatches({ ...plain, includeUnscored: true }, { ...listing, dealScore: 100 }, now)).toBe(false);
  });
  it('validates the level; omitted means good, so older clients get deals only', () => {
    const created = validateAlert({ equipment_type: 'Excavators' });
    expect(created.ok && created.criteria.dealLevel).toBe('good');
    expect(created.ok && created.criteria.includeUnscored).toBe(false);
    const excellent = validateAlert({ equipment_type: 'Excavators', deal_level: 'Excellent', include_unscored: true });
    expect(excellent.ok && [excellent.criteria.dealLevel, excellent.criteria.includeUnscored]).toEqual(['excellent', true]);
    expect(validateAlert({ equipment_type: 'Excavators', deal_level: 'fair' })).toEqual({ ok: false, errors: { deal_level: [MESSAGES.dealLevel] } });
    // a PATCH that does not name the level keeps it
    const kept = validateAlert({ price_max: 100 }, excellent.ok ? excellent.criteria : undefined);
    expect(kept.ok && kept.criteria.dealLevel).toBe('excellent');
  });
  it('notifies again only on a material change', () => {
    expect(notificationEvent(null, { priceUsd: 100_000, dealScore: 650 })).toEqual({ event: 'match', key: '' });
    const before = { lowestPrice: 100_000, bestRank: levelRank(650) };
    expect(notificationEvent(before, { priceUsd: 100_000, dealScore: 650 })).toBeNull();
    expect(notificationEvent(before, { priceUsd: 90_001, dealScore: 650 })).toBeNull(); // under 10% down
    expect(notificationEvent(before, { priceUsd: 90_000, dealScore: 650 })).toEqual({ event: 'price_drop', key: '90000' });
    expect(notificationEvent(before, { priceUsd: 95_000, dealScore: 791 })).toEqual({ event: 'level_up', key: 'excellent' });
    expect(notificationEvent(before, { priceUsd: 95_000, dealScore: 600 })).toBeNull(); // still good: no message
    expect(notificationEvent({ lowestPrice: 100_000, bestRank: 0 }, { priceUsd: 100_000, dealScore: 650 })).toEqual({ event: 'level_up', key: 'good' });
    expect(notificationEvent({ lowestPrice: null, bestRank: 3 }, { priceUsd: 1, dealScore: 650 })).toBeNull();
  });
  it('needs every criterion; null means any', () => {
    expect(alertMatches(alert, { ...listing, priceUsd: 50_001 }, now)).toBe(false);
    expect(alertMatches(alert, { ...listing, priceUsd: null }, now)).toBe(false);
    expect(alertMatches({ ...alert, priceMin: null, priceMax: null }, { ...listing, priceUsd: null }, now)).toBe(true);
    expect(alertMatches(alert, { ...listing, state: 'OK' }, now)).toBe(false);
    expect(alertMatches({ ...alert, state: null }, { ...listing, state: null }, now)).toBe(true);
    expect(alertMatches(alert, { ...listing, condition: 'Fair' }, now)).toBe(false);
    expect(alertMatches(alert, { ...listing, categoryId: 2 }, now)).toBe(false);
    expect(alertMatches(alert, { ...listing, title: 'Deere 210', description: 'caterpillar undercarriage' }, now)).toBe(true);
    expect(alertMatches(alert, { ...listing, title: 'Deere 210' }, now)).toBe(false);
    expect(alertMatches({ ...alert, isActive: false }, listing, now)).toBe(false);
  });
  it('within N miles of a ZIP code: by the lot\'s place, beside the state; unplaced lots never match a radius', () => {
    // 77002 is downtown Houston; Dallas is ~225 miles away, Austin ~145.
    const houston = validateAlert({ equipment_type: 'Excavators', near_zip: '77002', radius_miles: 150 });
    expect(houston.ok).toBe(true);
    const near = { ...alert, ...(houston.ok ? { nearZip: houston.criteria.nearZip, nearLat: houston.criteria.nearLat, nearLon: houston.criteria.nearLon, radiusMiles: 150 } : {}) };
    expect(near.nearZip).toBe('77002');
    expect(alertMatches(near, listing, now)).toBe(true);
    expect(alertMatches(near, { ...listing, lat: 30.2672, lon: -97.7431 }, now)).toBe(true); // Austin
    expect(alertMatches(near, { ...listing, lat: 32.7767, lon: -96.797 }, now)).toBe(false); // Dallas
    expect(alertMatches(near, { ...listing, lat: null, lon: null }, now)).toBe(false);
    expect(alertMatches({ ...near, radiusMiles: null }, { ...listing, lat: 32.7767, lon: -96.797 }, now)).toBe(true);
    // the state still applies beside the radius
    expect(alertMatches(near, { ...listing, state: 'LA' }, now)).toBe(false);
  });
  it('validates the ZIP code and the radius; a radius needs a ZIP code; a PATCH keeps them', () => {
    expect(validateAlert({ equipment_type: 'Excavators', near_zip: '1234' })).toEqual({ ok: false, errors: { near_zip: [MESSAGES.nearZip] } });
    expect(validateAlert({ equipment_type: 'Excavators', near_zip: '00000' })).toEqual({ ok: false, errors: { near_zip: [MESSAGES.nearZip] } });
    expect(validateAlert({ equipment_type: 'Excavators', radius_miles: 100 })).toEqual({ ok: false, errors: { radius_miles: [MESSAGES.radiusNeedsZip] } });
    expect(validateAlert({ equipment_type: 'Excavators', near_zip: '50309', radius_miles: 0 })).toEqual({ ok: false, errors: { radius_miles: [MESSAGES.radiusMiles] } });
    expect(validateAlert({ equipment_type: 'Excavators', near_zip: '50309', radius_miles: 3001 })).toEqual({ ok: false, errors: { radius_miles: [MESSAGES.radiusMiles] } });
    const created = validateAlert({ equipment_type: 'Excavators', near_zip: ' 50309 ', radius_miles: '150' });
    expect(created.ok && [created.criteria.nearZip, created.criteria.radiusMiles]).toEqual(['50309', 150]);
    const kept = validateAlert({ price_max: 100 }, created.ok ? created.criteria : undefined);
    expect(kept.ok && [kept.criteria.nearZip, kept.criteria.radiusMiles, kept.criteria.nearLat]).toEqual(['50309', 150, created.ok && created.criteria.nearLat]);
    const cleared = validateAlert({ near_zip: null, radius_miles: null }, created.ok ? created.criteria : undefined);
    expect(cleared.ok && [cleared.criteria.nearZip, cleared.criteria.radiusMiles, cleared.criteria.nearLat]).toEqual([null, null, null]);
    // the ZIP code alone: no filter (messages carry the price delivered there)
    const zipOnly = validateAlert({ equipment_type: 'Excavators', near_zip: '50309' });
    expect(zipOnly.ok && zipOnly.criteria.radiusMiles).toBeNull();
  });
  it('worth the trip: the discount under fair value must exceed the haul\'s high estimate from the ZIP code', () => {
    const houston = validateAlert({ equipment_type: 'Excavators', near_zip: '77002', worth_the_trip: true });
    expect(houston.ok && houston.criteria.worthTheTrip).toBe(true);
    const trip = { ...alert, ...(houston.ok ? { nearZip: '77002', nearLat: houston.criteria.nearLat, nearLon: houston.criteria.nearLon, worthTheTrip: true } : {}) };
    const dallas = { ...listing, lat: 32.7767, lon: -96.797 };
    const miles = distanceMiles({ lat: trip.nearLat!, lon: trip.nearLon! }, dallas);
    expect(miles).toBeGreaterThan(220);
    expect(miles).toBeLessThan(230);
    // a 20-ton CAT 320 on a lowboy, ~270 road miles: $1,080–2,500 (the minimum charge is the high end)
    expect(haulEstimate(weightClass(1, 'CAT 320'), miles)).toMatchObject({ weightClass: 'heavy', high: 2500 });
    expect(alertMatches(trip, { ...dallas, fairValue: 47_501 }, now)).toBe(true); // $2,501 under
    expect(alertMatches(trip, { ...dallas, fairValue: 47_500 }, now)).toBe(false); // $2,500: not more than the haul
    expect(alertMatches({ ...trip, worthTheTrip: false }, { ...dallas, fairValue: 47_500 }, now)).toBe(true);
    // a mini excavator rides a hotshot trailer: $950 at most, so a $1,000 discount is worth it
    expect(alertMatches(trip, { ...dallas, title: 'CAT mini excavator', fairValue: 46_000 }, now)).toBe(true);
    // Los Angeles, ~1,375 miles: $9,880 at most on the lowboy — $9,000 under is not worth it, $10,000 is
    const la = { ...listing, lat: 34.0522, lon: -118.2437 };
    expect(haulEstimate('heavy', distanceMiles({ lat: trip.nearLat!, lon: trip.nearLon! }, la)).high).toBe(9880);
    expect(alertMatches(trip, { ...la, fairValue: 54_000 }, now)).toBe(false);
    expect(alertMatches(trip, { ...la, fairValue: 55_000 }, now)).toBe(true);
    // not valued, no price, not placed: never worth the trip
    expect(alertMatches(trip, { ...dallas, fairValue: null }, now)).toBe(false);
    expect(alertMatches(trip, { ...dallas }, now)).toBe(false);
    expect(alertMatches({ ...trip, priceMin: null, priceMax: null }, { ...dallas, priceUsd: null, fairValue: 60_000 }, now)).toBe(false);
    expect(alertMatches(trip, { ...dallas, lat: null, lon: null, fairValue: 90_000 }, now)).toBe(false);
  });
  it('worth the trip needs a ZIP code (a 400 names the field); a PATCH that clears the ZIP code must turn it off', () => {
    expect(validateAlert({ equipment_type: 'Excavators', worth_the_trip: true })).toEqual({ ok: false, errors: { worth_the_trip: [MESSAGES.worthTheTripNeedsZip] } });
    const created = validateAlert({ equipment_type: 'Excavators', near_zip: '50309', worth_the_trip: true });
    expect(created.ok && created.criteria.worthTheTrip).toBe(true);
    const base = created.ok ? created.criteria : undefined;
    expect(validateAlert({ price_max: 100 }, base)).toMatchObject({ ok: true, criteria: { worthTheTrip: true } });
    expect(validateAlert({ near_zip: null }, base)).toEqual({ ok: false, errors: { worth_the_trip: [MESSAGES.worthTheTripNeedsZip] } });
    expect(validateAlert({ near_zip: null, worth_the_trip: false }, base)).toMatchObject({ ok: true, criteria: { nearZip: null, worthTheTrip: false } });
    expect(validateAlert({ equipment_type: 'Excavators', worth_the_trip: null })).toMatchObject({ ok: true, criteria: { worthTheTrip: false } });
  });
  it('only live lots: open and not ended', () => {
    expect(alertMatches(alert, { ...listing, status: 'closed' }, now)).toBe(false);
    expect(alertMatches(alert, { ...listing, auctionEndAt: new Date('2026-11-21T11:59:59Z') }, now)).toBe(false);
    expect(alertMatches(alert, { ...listing, auctionEndAt: null }, now)).toBe(true);
  });
});

describe('digest schedule and message keys', () => {
  it('reads the UTC hour and day of a tick slot', () => {
    expect(slotTime('202611210700')).toEqual({ hour: 7, day: '2026-11-21' });
  });
  it('round-trips message keys', () => {
    expect(parseAlertMessageKey(instantMessageKey(42))).toEqual({ kind: 'instant', notificationId: 42 });
    expect(parseAlertMessageKey(digestMessageKey(7, '2026-11-21'))).toEqual({ kind: 'digest', alertId: 7, day: '2026-11-21' });
    expect(parseAlertMessageKey('password-reset:1:abc')).toBeNull();
  });
});
