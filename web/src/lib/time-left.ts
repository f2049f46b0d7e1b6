/** Time left before an auction ends (spec §4, §9). */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export type TimeLeft =
  | { state: 'none'; text: null; warning: false }
  | { state: 'ended'; text: 'Ended'; warning: false }
  | { state: 'open'; text: string; warning: boolean };

function parseDate(value: string | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * 'Ended' once past the end; '{d}d {h}h' with a day or more left; '{h}h' under a day, which is
 * also when the warning highlight applies. No (or an unreadable) end date gives state 'none'.
 */
export function timeLeft(endDate: string | Date | null | undefined, now: Date = new Date()): TimeLeft {
  const end = parseDate(endDate);
  if (!end) return { state: 'none', text: null, warning: false };
  const remaining = end.getTime() - now.getTime();
  if (remaining <= 0) return { state: 'ended', text: 'Ended', warning: false };
  const days = Math.floor(remaining / DAY_MS);
  const hours = Math.floor((remaining % DAY_MS) / HOUR_MS);
  if (days > 0) return { state: 'open', text: `${days}d ${hours}h`, warning: false };
  return { state: 'open', text: `${hours}h`, warning: true };
}

/** The card's auction-end badge: 'Auction Ended', 'No end date' or '{time} left'. */
export function auctionEndBadgeText(endDate: string | null | undefined, now: Date = new Date()): string {
  const left = timeLeft(endDate, now);
  if (left.state === 'none') return 'No end date';
  if (left.state === 'ended') return 'Auction Ended';
  return `${left.text} left`;
}

/** A readable end date and time, e.g. 'Nov 21, 2026, 3:00 PM'; null when missing or unreadable. */
export function formatEndDate(endDate: string | null | undefined): string | null {
  const end = parseDate(endDate);
  if (!end) return null;
  return new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(end);
}
