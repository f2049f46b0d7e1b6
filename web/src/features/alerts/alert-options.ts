/** The alert form's choices (spec §9) and how a row is shown. */
import { formatMoney } from '../../lib/format-price.js';

export const EQUIPMENT_TYPES = ['Excavators', 'Bulldozers', 'Wheel Loaders', 'Backhoe Loaders', 'Skid Steers', 'Cranes', 'Dump Trucks', 'Generators', 'Compactors', 'Graders'] as const;

export const CONDITIONS = ['New', 'Like New', 'Good', 'Fair', 'Poor', 'Parts Only'] as const;

/** The 50 US states by USPS code. */
export const US_STATES: ReadonlyArray<readonly [string, string]> = [
  ['AL', 'Alabama'], ['AK', 'Alaska'], ['AZ', 'Arizona'], ['AR', 'Arkansas'], ['CA', 'California'], ['CO', 'Colorado'], ['CT', 'Connecticut'],
  ['DE', 'Delaware'], ['FL', 'Florida'], ['GA', 'Georgia'], ['HI', 'Hawaii'], ['ID', 'Idaho'], ['IL', 'Illinois'], ['IN', 'Indiana'], ['IA', 'Iowa'],
  ['KS', 'Kansas'], ['KY', 'Kentucky'], ['LA', 'Louisiana'], ['ME', 'Maine'], ['MD', 'Maryland'], ['MA', 'Massachusetts'], ['MI', 'Michigan'],
  ['MN', 'Minnesota'], ['MS', 'Mississippi'], ['MO', 'Missouri'], ['MT', 'Montana'], ['NE', 'Nebraska'], ['NV', 'Nevada'], ['NH', 'New Hampshire'],
  ['NJ', 'New Jersey'], ['NM', 'New Mexico'], ['NY', 'New York'], ['NC', 'North Carolina'], ['ND', 'North Dakota'], ['OH', 'Ohio'], ['OK', 'Oklahoma'],
  ['OR', 'Oregon'], ['PA', 'Pennsylvania'], ['RI', 'Rhode Island'], ['SC', 'South Carolina'], ['SD', 'South Dakota'], ['TN', 'Tennessee'],
  ['TX', 'Texas'], ['UT', 'Utah'], ['VT', 'Vermont'], ['VA', 'Virginia'], ['WA', 'Washington'], ['WV', 'West Virginia'], ['WI', 'Wisconsin'], ['WY', 'Wyoming'],
];

const stateNames = new Map(US_STATES);

/** 'Texas' for 'TX'; 'Any' when unset (spec §2). */
export function locationText(state: string | null | undefined): string {
  if (!state) return 'Any';
  return stateNames.get(state) ?? state;
}

export function conditionText(condition: string | null | undefined): string {
  return condition || 'Any';
}

export function deliveryText(method: string): string {
  return method === 'sms' ? 'SMS' : 'Email';
}

/**
 * Where the alert measures from, in words for its row: "within 150 mi of 50309"; a ZIP without a
 * radius filters nothing (its e-mails show the price delivered there); null when it has no ZIP.
 */
export function nearText(alert: { near_zip?: string | null; radius_miles?: number | null; worth_the_trip?: boolean }): string | null {
  if (!alert.near_zip) return null;
  const trip = alert.worth_the_trip ? ', worth the trip' : '';
  if (alert.radius_miles === null || alert.radius_miles === undefined) return `${alert.worth_the_trip ? 'from' : 'any distance from'} ${alert.near_zip}${trip}`;
  return `within ${alert.radius_miles.toLocaleString('en-US')} mi of ${alert.near_zip}${trip}`;
}

/**
 * The row's Location cell: the state (or 'Any'), and the distance below it. A radius without a
 * state is not "Any" location, so then the distance is the cell's only line.
 */
export function alertLocationLines(alert: { state: string | null; near_zip?: string | null; radius_miles?: number | null; worth_the_trip?: boolean }): { main: string; detail: string | null } {
  const near = nearText(alert);
  if (!alert.state && near && alert.radius_miles !== null && alert.radius_miles !== undefined) return { main: near, detail: null };
  return { main: locationText(alert.state), detail: near };
}

/** Spec §5: prices are whole numbers; empty (or not a number) means not set; min above max is allowed. */
export function parseWholeDollars(value: string): number | null {
  const trimmed = value.trim().replace(/[$,\s]/g, '');
  if (trimmed === '') return null;
  const n = Number(trimmed);
  if (!Number.isFinite(n) || n < 0) return null;
  return Math.trunc(n);
}

export function notificationPriceText(price: number | null): string {
  return price === null ? 'Price on request' : formatMoney(price);
}

/** The alert's deal filter in words: the premium minimum when set, else its level. */
export function dealFilterText(alert: { deal_level?: string; min_deal_score?: number | null; include_unscored?: boolean }): string {
  const base =
    alert.min_deal_score !== null && alert.min_deal_score !== undefined
      ? `Deal score ${alert.min_deal_score}+`
      : alert.deal_level === 'excellent'
        ? 'Excellent deals only'
        : 'Good deals or better';
  return alert.include_unscored ? `${base}, and unscored` : base;
}

/**
 * The filters' rules, as the API checks them (services/alerts/alert-rules.ts): the web
 * app does not import server code, so the limits and messages are repeated here.
 */
export const ALERT_FIELD_MESSAGES = {
  minDealScore: 'Enter a whole number from 0 to 100.',
  keywordsTooLong: 'Use at most 10 keywords of at most 40 characters each (200 characters in all).',
  nearZip: 'Enter a US ZIP code (5 digits).',
  radiusNeedsZip: 'Add a ZIP code to measure the distance from.',
  worthTheTripNeedsZip: 'Add a ZIP code to estimate the haul from.',
} as const;
export const MAX_KEYWORDS = 10;
export const MAX_KEYWORD_LENGTH = 40;
export const MAX_KEYWORDS_TEXT = 200;

/** A minimum deal score: '' is not set (null); otherwise a whole number 0–100, else undefined (invalid). */
export function parseMinDealScore(value: string): number | null | undefined {
  if (value.trim() === '') return null;
  if (!/^\s*\d+\s*$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 0 && n <= 100 ? n : undefined;
}

/** Lower-cased distinct words; quotes and punctuation other than - . / are separators (as the API splits them). */
export function keywordTerms(keywords: string): string[] {
  const terms = keywords
    .toLowerCase()
    .split(/[^\p{L}\p{N}\-./]+/u)
    .map((t) => t.replace(/^[-./]+|[-./]+$/g, ''))
    .filter(Boolean);
  return [...new Set(terms)];
}

/** Keywords as sent: trimmed, spaces collapsed; null when no word is left; undefined when over the limits. */
export function parseKeywords(value: string): string | null | undefined {
  const text = value.trim().replace(/\s+/g, ' ');
  const terms = keywordTerms(text);
  if (text.length > MAX_KEYWORDS_TEXT || terms.length > MAX_KEYWORDS || terms.some((t) => t.length > MAX_KEYWORD_LENGTH)) return undefined;
  return terms.length > 0 ? text : null;
}

/** The alert's keywords for its row, or null when it has none. */
export function keywordsText(keywords: string | null | undefined): string | null {
  return keywords ? `Keywords: ${keywords}` : null;
}
