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
