/**
 * What an alert may contain (spec §5 "Alert creation", PRODUCT.md "Alerts") and what the plan
 * allows, as pure functions: the API shell validates with them, the tests call them directly.
 */
import { CONDITIONS, type Condition } from '../../db/schema/listings.js';
import { ALERT_DEAL_LEVELS, type AlertDealLevel, type AlertFrequency, type DeliveryMethod } from '../../db/schema/alerts.js';
import { CATEGORIES, categoryIdByName } from '../shared/categories.js';
import { lookupZip } from '../shared/geo/gazetteer.js';
import { toStateCode } from '../shared/us-states.js';
import type { AlertCriteria } from '../shared/repositories/alerts-repository.js';

export const MESSAGES = {
  equipmentTypeRequired: 'Please select an equipment type',
  equipmentTypeUnknown: `Select one of: ${CATEGORIES.map((c) => c.name).join(', ')}.`,
  wholeDollars: 'Enter a whole number of US dollars (0 to 1,000,000,000).',
  state: 'Select a US state (two-letter code, e.g. TX).',
  condition: `Select one of: ${CONDITIONS.join(', ')}.`,
  minDealScore: 'Enter a whole number from 0 to 100.',
  dealLevel: 'Choose good (good or better) or excellent (excellent only).',
  keywordsTooLong: 'Use at most 10 keywords of at most 40 characters each (200 characters in all).',
  nearZip: 'Enter a US ZIP code (5 digits).',
  radiusMiles: 'Enter a whole number of miles from 1 to 3,000.',
  radiusNeedsZip: 'Add a ZIP code to measure the distance from.',
  worthTheTripNeedsZip: 'Add a ZIP code to estimate the haul from.',
  worthTheTrip: 'Must be true or false.',
  phoneRequired: 'Add a mobile phone number to your profile to get SMS alerts.',
  alertLimit: (max: number) => `Your free plan allows up to ${max} alerts. Upgrade to Premium for unlimited alerts.`,
  smsPremium: 'SMS alerts are a Premium feature. Upgrade to Premium, or choose email delivery.',
  advancedPremium: 'A minimum deal score and keywords are Premium filters. Upgrade to Premium to use them.',
} as const;

export const MAX_PRICE = 1_000_000_000;
export const MAX_KEYWORDS = 10;
export const MAX_KEYWORD_LENGTH = 40;
export const MAX_KEYWORDS_TEXT = 200;
export const MAX_RADIUS_MILES = 3000;

/** What the API accepts (after zod has checked the types); every field optional for PATCH. */
export type AlertInput = {
  equipment_type?: string | null;
  price_min?: number | string | null;
  price_max?: number | string | null;
  state?: string | null;
  condition?: string | null;
  delivery_method?: DeliveryMethod;
  is_active?: boolean;
  min_deal_score?: number | string | null;
  deal_level?: string | null;
  include_unscored?: boolean | null;
  keywords?: string | null;
  frequency?: AlertFrequency;
  near_zip?: string | null;
  radius_miles?: number | string | null;
  worth_the_trip?: boolean | null;
};

/** A valid alert's criteria, as stored: the alerts repository's row shape (services/shared/repositories/alerts-repository.ts). */
export type { AlertCriteria } from '../shared/repositories/alerts-repository.js';

export type FieldErrors = Record<string, string[]>;

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Whole numbers, '' or null meaning not set; `undefined` result means invalid. */
function wholeNumber(value: unknown, max: number): number | null | undefined {
  if (isBlank(value)) return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 0 && n <= max ? n : undefined;
}

/** Lower-cased distinct words; quotes and punctuation other than - . / are separators. */
export function keywordTerms(keywords: string): string[] {
  const terms = keywords
    .toLowerCase()
    .split(/[^\p{L}\p{N}\-./]+/u)
    .map((t) => t.replace(/^[-./]+|[-./]+$/g, ''))
    .filter(Boolean);
  return [...new Set(terms)];
}

/**
 * Merges `input` over `base` (a PATCH; `base` undefined for a create) and validates the result.
 * Returns the criteria or every field's error.
 */
export function validateAlert(input: AlertInput, base?: AlertCriteria): { ok: true; criteria: AlertCriteria } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => (errors[field] ??= []).push(message);
  const has = (key: keyof AlertInput) => input[key] !== undefined || !base;

  let categoryId = base?.categoryId ?? 0;
  if (has('equipment_type')) {
    const raw = input.equipment_type;
    if (isBlank(raw)) fail('equipment_type', MESSAGES.equipmentTypeRequired);
    else {
      const id = categoryIdByName(String(raw));
      if (id === undefined) fail('equipment_type', MESSAGES.equipmentTypeUnknown);
      else categoryId = id;
    }
  }

  const price = (key: 'price_min' | 'price_max', current: number | null | undefined) => {
    if (!has(key)) return current ?? null;
    const n = wholeNumber(input[key], MAX_PRICE);
    if (n === undefined) fail(key, MESSAGES.wholeDollars);
    return n ?? null;
  };
  const priceMin = price('price_min', base?.priceMin);
  const priceMax = price('price_max', base?.priceMax);

  let state = base?.state ?? null;
  if (has('state')) {
    const raw = input.state;
    if (isBlank(raw) || String(raw).trim().toLowerCase() === 'any-location') state = null;
    else {
      const code = toStateCode(String(raw));
      if (!code) fail('state', MESSAGES.state);
      state = code ?? null;
    }
  }

  let condition = base?.condition ?? null;
  if (has('condition')) {
    const raw = input.condition;
    if (isBlank(raw) || String(raw).trim().toLowerCase() === 'any-condition') condition = null;
    else {
      const wanted = String(raw).trim().toLowerCase().replace(/[-_]+/g, ' ');
      const found = CONDITIONS.find((c) => c.toLowerCase() === wanted);
      if (!found) fail('condition', MESSAGES.condition);
      condition = found ?? null;
    }
  }

  let minDealScore = base?.minDealScore ?? null;
  if (has('min_deal_score')) {
    const n = wholeNumber(input.min_deal_score, 100);
    if (n === undefined) fail('min_deal_score', MESSAGES.minDealScore);
    minDealScore = n ?? null;
  }

  let dealLevel: AlertDealLevel = base?.dealLevel ?? 'good';
  if (has('deal_level')) {
    const raw = input.deal_level;
    if (isBlank(raw)) dealLevel = 'good';
    else {
      const wanted = String(raw).trim().toLowerCase();
      const found = ALERT_DEAL_LEVELS.find((l) => l === wanted);
      if (!found) fail('deal_level', MESSAGES.dealLevel);
      dealLevel = found ?? 'good';
    }
  }

  let keywords = base?.keywords ?? null;
  let terms = base?.keywordTerms ?? null;
  if (has('keywords')) {
    const raw = input.keywords;
    if (isBlank(raw)) {
      keywords = null;
      terms = null;
    } else {
      const text = String(raw).trim().replace(/\s+/g, ' ');
      const parsed = keywordTerms(text);
      if (text.length > MAX_KEYWORDS_TEXT || parsed.length > MAX_KEYWORDS || parsed.some((t) => t.length > MAX_KEYWORD_LENGTH)) {
        fail('keywords', MESSAGES.keywordsTooLong);
      }
      keywords = parsed.length > 0 ? text : null;
      terms = parsed.length > 0 ? parsed : null;
    }
  }

  let near = base && base.nearZip && base.nearLat !== null && base.nearLon !== null ? { zip: base.nearZip, lat: base.nearLat, lon: base.nearLon } : null;
  if (has('near_zip')) {
    const raw = input.near_zip;
    if (isBlank(raw)) near = null;
    else {
      const place = lookupZip(String(raw));
      if (!place) fail('near_zip', MESSAGES.nearZip);
      near = place ? { zip: String(raw).trim().slice(0, 5), lat: place.lat, lon: place.lon } : null;
    }
  }
  let radiusMiles = base?.radiusMiles ?? null;
  if (has('radius_miles')) {
    const n = wholeNumber(input.radius_miles, MAX_RADIUS_MILES);
    if (n === undefined || n === 0) fail('radius_miles', MESSAGES.radiusMiles);
    radiusMiles = n || null;
  }
  if (radiusMiles !== null && near === null && !errors.near_zip) fail('radius_miles', MESSAGES.radiusNeedsZip);
  let worthTheTrip = base?.worthTheTrip ?? false;
  if (has('worth_the_trip')) {
    const raw = input.worth_the_trip;
    if (raw !== undefined && raw !== null && typeof raw !== 'boolean') fail('worth_the_trip', MESSAGES.worthTheTrip);
    else worthTheTrip = raw ?? false;
  }
  // The haul is estimated from the alert's ZIP code: without one the option cannot be kept (a PATCH
  // that clears the ZIP code of such an alert must turn the option off too).
  if (worthTheTrip && near === null && !errors.near_zip) fail('worth_the_trip', MESSAGES.worthTheTripNeedsZip);

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    criteria: {
      categoryId,
      priceMin,
      priceMax,
      state,
      condition,
      deliveryMethod: input.delivery_method ?? base?.deliveryMethod ?? 'email',
      frequency: input.frequency ?? base?.frequency ?? 'instant',
      dealLevel,
      minDealScore,
      includeUnscored: input.include_unscored ?? base?.includeUnscored ?? false,
      keywords,
      keywordTerms: terms,
      isActive: input.is_active ?? base?.isActive ?? true,
      nearZip: near?.zip ?? null,
      nearLat: near?.lat ?? null,
      nearLon: near?.lon ?? null,
      radiusMiles,
      worthTheTrip,
    },
  };
}

export type PlanRules = { maxAlerts: number | null; sms: boolean; advancedFilters: boolean };

/**
 * The plan's word on a create or change: the message of the 403, or null when allowed. Only what
 * the request sets is judged, so a user who downgraded can still pause or delete old alerts.
 */
export function planViolation(
  plan: PlanRules,
  change: { creating: boolean; existingAlerts: number; setsSms: boolean; setsAdvancedFilters: boolean },
): string | null {
  if (change.creating && plan.maxAlerts !== null && change.existingAlerts >= plan.maxAlerts) return MESSAGES.alertLimit(plan.maxAlerts);
  if (change.setsSms && !plan.sms) return MESSAGES.smsPremium;
  if (change.setsAdvancedFilters && !plan.advancedFilters) return MESSAGES.advancedPremium;
  return null;
}

/**
 * A profile phone as E.164, or null when it cannot be one. Ten digits are a US number (the
 * product covers the 50 states); otherwise an explicit +country code is needed.
 */
export function toE164(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const trimmed = phone.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (trimmed.startsWith('+')) return digits.length >= 8 && digits.length <= 15 ? `+${digits}` : null;
  if (digits.length === 10) return `+1${digits}`;
  if (digits.length === 11 && digits.startsWith('1')) return `+${digits}`;
  return null;
}

export function categoryName(categoryId: number): string {
  return CATEGORIES.find((c) => c.id === categoryId)?.name ?? 'Other';
}
