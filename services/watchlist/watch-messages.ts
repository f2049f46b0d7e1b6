/**
 * The words of watchlist messages (issue 31): the reminder before the close, the price passing
 * the buyer's maximum, how the lot ended, and a lot its source no longer shows — by e-mail (with
 * the one-click unsubscribe link) and SMS (one short segment). Pure: every input is passed in,
 * the clock included. Listing text comes from auction sites: bounded, stripped, escaped in HTML.
 */
import { cleanText, dealScoreText, dealUrl, emailFooter, emailHtml, escapeHtml, factsTableHtml, formatUsd, shortDealUrl, type Fact, type RenderedEmail } from '../alerts/alert-messages.js';
import { outcomeText, type NoticeKind } from './watch-rules.js';
import type { ListingStatus } from '../../db/schema/listings.js';

export const WATCH_KINDS: Record<NoticeKind, string> = {
  reminder: 'watch_reminder',
  price_rise: 'watch_price_rise',
  closed: 'watch_closed',
  gone: 'watch_gone',
};

export type WatchMessageInput = {
  kind: NoticeKind;
  watchId: number;
  listing: {
    id: number;
    slug: string;
    title: string;
    status: ListingStatus;
    priceUsd: number | null;
    dealScore: number | null;
    fairValue: number | null;
    auctionEndAt: Date | null;
    finalPrice: number | null;
  };
  maxPrice: number | null;
  /** The maximum is the lot's Good limit ("now $6,400: above the Good price $6,200"). */
  maxPriceFollowsGood?: boolean;
  appUrl: string;
  now: Date;
};

/**
 * The notice's idempotency key: one message per (watch, notice kind, end time) — and per maximum
 * for price notices, so a raised maximum can be passed again. The outbox's unique key makes a
 * second message of the same notice impossible, whatever reruns or crashes happen. A maximum that
 * follows the Good limit (`'good'`) is one key however the limit moves: its passing is told once.
 */
export function watchMessageKey(watchId: number, kind: NoticeKind, end: Date | null, maxPrice: number | 'good' | null): string {
  const endPart = end === null ? 'none' : String(Math.floor(end.getTime() / 1000));
  return kind === 'price_rise' ? `watch:${watchId}:price_rise-${maxPrice ?? 0}:${endPart}` : `watch:${watchId}:${kind}:${endPart}`;
}

/** "1 hour", "15 minutes", "1 day 2 hours": the time left, rounded to the minute. */
export function leadText(end: Date | null, now: Date): string {
  if (!end) return 'soon';
  const minutes = Math.max(0, Math.round((end.getTime() - now.getTime()) / 60_000));
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'}${rest ? ` ${rest} min` : ''}`;
  const days = Math.floor(hours / 24);
  return `${days} day${days === 1 ? '' : 's'}${hours % 24 ? ` ${hours % 24} h` : ''}`;
}

function endText(end: Date | null): string {
  return end ? `${end.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'not stated';
}

function headline(input: WatchMessageInput): { subject: string; intro: string } {
  const { listing, now } = input;
  const title = cleanText(listing.title);
  const price = listing.priceUsd === null ? null : formatUsd(listing.priceUsd);
  switch (input.kind) {
    case 'reminder':
      return {
        subject: `Closes in ${leadText(listing.auctionEndAt, now)}: ${title}${price ? ` — now ${price}` : ''}`,
        intro: `A lot you watch closes in ${leadText(listing.auctionEndAt, now)}.`,
      };
    case 'price_rise':
      if (input.maxPriceFollowsGood)
        return {
          subject: `Above the Good price: ${title}${price ? ` now ${price}` : ''}`,
          intro: `A lot you watch is ${price ? `now ${price}: ` : ''}above the Good price ${formatUsd(input.maxPrice ?? 0)}.`,
        };
      return {
        subject: `Price passed your maximum: ${title}${price ? ` now ${price}` : ''}`,
        intro: `The price of a lot you watch passed your maximum of ${formatUsd(input.maxPrice ?? 0)}.`,
      };
    case 'closed':
      return {
        subject: `Closed: ${title} — ${outcomeText(listing.status, listing.finalPrice, listing.fairValue, formatUsd)}`,
        intro: 'A lot you watch has closed.',
      };
    case 'gone':
      return {
        subject: `No longer listed: ${title}`,
        intro: 'A lot you watch is no longer shown by its auction site: we could not see how it ended.',
      };
  }
}

export function renderWatchEmail(input: WatchMessageInput & { unsubscribeUrl: string }): RenderedEmail {
  const { listing, appUrl } = input;
  const title = cleanText(listing.title);
  const { subject, intro } = headline(input);
  const rows: Fact[] = [];
  if (input.kind === 'closed') {
    rows.push({ label: 'Result', value: outcomeText(listing.status, listing.finalPrice, listing.fairValue, formatUsd) });
  } else {
    rows.push({ label: 'Price now', value: listing.priceUsd === null ? 'not shown' : formatUsd(listing.priceUsd) });
    if (input.maxPrice !== null) rows.push({ label: input.maxPriceFollowsGood ? 'Good price (bid up to)' : 'Your maximum', value: formatUsd(input.maxPrice) });
    rows.push({ label: 'Deal score', value: dealScoreText(listing.dealScore) });
  }
  rows.push({ label: 'Fair value', value: listing.fairValue === null ? 'not estimated' : formatUsd(listing.fairValue) });
  rows.push({ label: input.kind === 'closed' || input.kind === 'gone' ? 'Ended' : 'Closes', value: endText(listing.auctionEndAt) });
  const link = dealUrl(appUrl, listing.slug);
  const footer = emailFooter('You get this e-mail because you watch this lot on Deal Radar.', { label: 'Stop messages for this lot', url: input.unsubscribeUrl });
  const text = [
    intro,
    '',
    title,
    ...rows.map((r) => `${r.label}: ${r.value}`),
    '',
    `View the lot: ${link}`,
    `Your watchlist: ${appUrl}/watchlist`,
    '',
    ...footer.text,
  ].join('\n');
  const html = emailHtml([
    `<p>${escapeHtml(intro)}</p>`,
    `<h2 style="margin:0 0 8px">${escapeHtml(title)}</h2>`,
    ...factsTableHtml(rows),
    `<p><a href="${escapeHtml(link)}">View the lot</a> · <a href="${escapeHtml(`${appUrl}/watchlist`)}">Your watchlist</a></p>`,
    footer.html,
  ]);
  return { subject: cleanText(subject, 300), text, html };
}

/** One SMS segment: what happened, the price, a short link. */
export function renderWatchSms(input: WatchMessageInput): string {
  const { listing, appUrl, now } = input;
  const link = shortDealUrl(appUrl, listing.id);
  const price = listing.priceUsd === null ? '' : ` ${formatUsd(listing.priceUsd)}`;
  const head =
    input.kind === 'reminder'
      ? `Closes in ${leadText(listing.auctionEndAt, now)}:${price}`
      : input.kind === 'price_rise'
        ? input.maxPriceFollowsGood
          ? `${price ? `Now${price}: a` : 'A'}bove the Good price ${formatUsd(input.maxPrice ?? 0)}:`
          : `Over your max ${formatUsd(input.maxPrice ?? 0)}:${price}`
        : input.kind === 'closed'
          ? outcomeText(listing.status, listing.finalPrice, listing.fairValue, formatUsd).replace(/ of \$[\d,]+$/, '')
          : 'No longer listed';
  const room = 155 - head.length - link.length - 4;
  const title = cleanText(listing.title, Math.max(10, room));
  return `${head} ${title} ${link}`.slice(0, 159);
}
