/**
 * The words of alert messages: why the lot matched (title, price, deal score and level, fair
 * value, time left, link to the deal page) for e-mail, and a short form under 160 characters
 * for SMS that still says why (the alert's criteria and the fair-value range, compactly). Pure:
 * every input is passed in, including the clock. Listing text comes from auction sites, so it is
 * bounded, stripped of control characters and escaped in HTML.
 */
import type { AlertDealLevel, NotificationEvent } from '../../db/schema/alerts.js';
import type { Condition } from '../../db/schema/listings.js';
import { badgeScore } from './alert-matching.js';
import { dealClaimSentence, dealClaimShort, goodUpTo } from '../valuation/deal-claim.js';

export type MessageListing = {
  id: number;
  slug: string;
  title: string;
  priceUsd: number | null;
  dealScore: number | null;
  fairValue: number | null;
  /** The 10–90% range of the valuation (absent: not shown). */
  valueLow?: number | null;
  valueHigh?: number | null;
  /** The buyer's premium (%), counted in what the buyer pays (absent: none stated). */
  buyersPremiumPct?: number | null;
  /** The Good bid limit stored with the score ("Good up to $6,200"; absent or null: not shown). */
  goodBidLimit?: number | null;
  auctionEndAt: Date | null;
  city: string | null;
  state: string | null;
  /** When the alert has a ZIP code and the lot is placed: the distance and the price delivered there. */
  delivered?: MessageDelivered | null;
};

/** The distance from the alert's ZIP code and the price delivered there (delivered-price.ts `deliveredPrice`). */
export type MessageDelivered = {
  zip: string;
  distanceMiles: number;
  precision: 'zip' | 'city' | 'state';
  premium: number | null;
  haulLow: number;
  haulHigh: number;
  totalLow: number | null;
  totalHigh: number | null;
};

export type MessageAlert = {
  id: number;
  equipmentType: string;
  priceMin: number | null;
  priceMax: number | null;
  state: string | null;
  condition: Condition | null;
  dealLevel?: AlertDealLevel;
  minDealScore: number | null;
  includeUnscored?: boolean;
  keywords: string | null;
  /** "Within radiusMiles of nearZip" (issue 30). */
  nearZip?: string | null;
  radiusMiles?: number | null;
  /** Only lots whose discount exceeds the haul's high estimate from nearZip (issue 30). */
  worthTheTrip?: boolean;
};

export type RenderedEmail = { subject: string; text: string; html: string };

export const SMS_MAX_LENGTH = 159;
const TITLE_MAX = 200;

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0, minimumFractionDigits: 0 });
export const formatUsd = (n: number) => usd.format(Math.round(n));

/** Untrusted single-line text: no control characters, collapsed spaces, bounded. */
export function cleanText(value: string, max = TITLE_MAX): string {
  // eslint-disable-next-line no-control-regex
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The spec's level labels (§4): 80 excellent, 60 good, 40 fair, below poor — on the badge scale. */
export function dealLevelLabel(dealScore: number): string {
  const badge = badgeScore(dealScore);
  return badge >= 80 ? 'Excellent Deal' : badge >= 60 ? 'Good Deal' : badge >= 40 ? 'Fair Deal' : 'Poor Deal';
}

/** '{score} • {label}' as the badge shows it, or a plain note when the lot is not valued yet. */
export function dealScoreText(dealScore: number | null): string {
  return dealScore === null ? 'not rated yet' : `${badgeScore(dealScore)} • ${dealLevelLabel(dealScore)}`;
}

/** Spec §4: 'Ended', '{d}d {h}h', or '{h}h' under a day. */
export function timeLeft(end: Date | null, now: Date): string | null {
  if (!end) return null;
  const ms = end.getTime() - now.getTime();
  if (ms <= 0) return 'Ended';
  const hours = Math.floor(ms / 3_600_000);
  const days = Math.floor(hours / 24);
  // Under an hour the minutes are what a buyer needs ("0h" read as ended); under a minute, "<1m".
  if (hours === 0) return ms < 60_000 ? '<1m' : `${Math.floor(ms / 60_000)}m`;
  return days > 0 ? `${days}d ${hours % 24}h` : `${hours}h`;
}

export function dealUrl(appUrl: string, slug: string): string {
  return `${appUrl}/deal/${encodeURIComponent(slug)}`;
}

/** A short link for SMS: `/d/<id in base 36>` redirects to the deal page. */
export function shortDealUrl(appUrl: string, listingId: number): string {
  return `${appUrl}/d/${listingId.toString(36)}`;
}

export function priceRangeText(min: number | null, max: number | null): string {
  if (min !== null && max !== null) return `${formatUsd(min)} - ${formatUsd(max)}`;
  if (min !== null) return `Above ${formatUsd(min)}`;
  if (max !== null) return `Below ${formatUsd(max)}`;
  return 'Any price';
}

/** The alert's criteria in one line: what the lot was matched against. */
export function criteriaText(alert: MessageAlert): string {
  const where = alert.radiusMiles && alert.nearZip ? `within ${alert.radiusMiles} mi of ${alert.nearZip}` : null;
  const place = alert.state && where ? `${alert.state}, ${where}` : (alert.state ?? where ?? 'any location');
  const parts = [alert.equipmentType, priceRangeText(alert.priceMin, alert.priceMax), place, alert.condition ?? 'any condition'];
  if (alert.minDealScore !== null) parts.push(`deal score ${alert.minDealScore}+`);
  else parts.push(alert.dealLevel === 'excellent' ? 'excellent deals only' : 'good deals or better');
  if (alert.includeUnscored) parts.push('and listings without a score');
  if (alert.keywords) parts.push(`keywords "${cleanText(alert.keywords, 200)}"`);
  if (alert.worthTheTrip && alert.nearZip) parts.push(`worth the trip to ${alert.nearZip}`);
  return parts.join(' · ');
}

/** "about 120 mi away", or "~300 mi away (state only)" when only the lot's state is known. */
function awayText(d: MessageDelivered): string {
  const miles = Math.round(d.distanceMiles).toLocaleString('en-US');
  return d.precision === 'state' ? `~${miles} mi away (state only)` : `about ${miles} mi away`;
}

/**
 * The distance and the delivered estimate in one sentence: "about 120 mi away; ≈ $14,200–$15,100
 * delivered with premium and haul" (without a stated premium: "with haul; no buyer's premium
 * stated"; without a price: the haul alone).
 */
export function deliveredSentence(d: MessageDelivered): string {
  const range = (low: number, high: number) => `${formatUsd(low)}–${formatUsd(high)}`;
  if (d.totalLow === null || d.totalHigh === null) return `${awayText(d)}; haul ≈ ${range(d.haulLow, d.haulHigh)}`;
  const what = d.premium !== null ? 'with premium and haul' : "with haul; no buyer's premium stated";
  return `${awayText(d)}; ≈ ${range(d.totalLow, d.totalHigh)} delivered ${what}`;
}

/**
 * The same for SMS, in few GSM-7 characters (no '~' or '≈': '~' counts twice, '≈' makes the SMS
 * UCS-2): "100 mi, $50.3-52k delivered"; "300 mi (state), ..." when only the lot's state is known;
 * the haul alone without a price.
 */
export function deliveredSms(d: MessageDelivered): string {
  const miles = `${Math.round(d.distanceMiles)} mi${d.precision === 'state' ? ' (state)' : ''}`;
  if (d.totalLow === null || d.totalHigh === null) return `${miles}, haul ${compactRange(d.haulLow, d.haulHigh)}`;
  return `${miles}, ${compactRange(d.totalLow, d.totalHigh)} delivered`;
}

function fairValueLine(listing: MessageListing): string {
  if (listing.fairValue === null) return 'not estimated yet';
  const base = formatUsd(listing.fairValue);
  // the claim line already says how far under
  if (listing.priceUsd === null || listing.priceUsd <= 0 || claimLine(listing)) return base;
  const gap = Math.round((1 - listing.priceUsd / listing.fairValue) * 100);
  return gap > 0 ? `${base} (asking ${gap}% below)` : gap < 0 ? `${base} (asking ${-gap}% above)` : base;
}

/** The valuation's range, when known: what similar machines sold for, low to high. */
function rangeLine(listing: MessageListing): string | null {
  if (listing.valueLow == null || listing.valueHigh == null) return null;
  return `${formatUsd(listing.valueLow)} - ${formatUsd(listing.valueHigh)}`;
}

export type Fact = { label: string; value: string };

/**
 * The end of every alert, digest and watch e-mail (watch-messages.ts too): why the reader gets it
 * and the one link that stops it (the same link the List-Unsubscribe header carries), as text
 * lines and as the HTML body's last paragraph.
 */
export function emailFooter(reason: string, stop: { label: string; url: string }): { text: string[]; html: string } {
  return {
    text: [reason, `${stop.label}: ${stop.url}`],
    html: `<p style="color:#666;font-size:12px">${escapeHtml(reason)} <a href="${escapeHtml(stop.url)}">${escapeHtml(stop.label)}</a></p>`,
  };
}

/** A lot's facts as an HTML table, label and value escaped. */
export function factsTableHtml(rows: Fact[], attributes = 'cellpadding="4" style="border-collapse:collapse"'): string[] {
  return [`<table ${attributes}>`, ...rows.map((f) => `<tr><th align="left">${escapeHtml(f.label)}</th><td>${escapeHtml(f.value)}</td></tr>`), '</table>'];
}

/** An e-mail's HTML body around its parts (already escaped): one look for every message. */
export function emailHtml(parts: string[]): string {
  return ['<!doctype html><html><body style="font-family:Arial,sans-serif;color:#111">', ...parts, '</body></html>'].join('\n');
}

/** "$3,350 — about 60% under similar sales; 99 in 100 sold for more" (deal-claim.ts), or null when unscored. */
export function claimLine(listing: MessageListing): string | null {
  return dealClaimSentence({ priceUsd: listing.priceUsd, buyersPremiumPct: listing.buyersPremiumPct, fairValue: listing.fairValue, dealScore: listing.dealScore });
}

/**
 * What the message says of a lot. The distance and price delivered: a row each (distance, haul,
 * total) in the instant e-mail; one sentence (`deliveredSentence`) a lot in the digest, which
 * lists many.
 */
function facts(listing: MessageListing, now: Date, delivered: 'rows' | 'sentence' = 'rows'): Fact[] {
  const claim = claimLine(listing);
  const list: Fact[] = [
    { label: 'Price', value: listing.priceUsd === null ? 'not shown' : formatUsd(listing.priceUsd) },
    { label: 'Deal score', value: dealScoreText(listing.dealScore) },
    ...(claim ? [{ label: 'The deal', value: claim }] : []),
    ...(goodUpTo(listing.goodBidLimit) ? [{ label: 'Bid limit', value: `${goodUpTo(listing.goodBidLimit)} (before premium)` }] : []),
    { label: 'Fair value', value: fairValueLine(listing) },
  ];
  const range = rangeLine(listing);
  if (range) list.push({ label: 'Fair value range', value: range });
  const left = timeLeft(listing.auctionEndAt, now);
  if (left) list.push({ label: 'Time left', value: left });
  const place = [listing.city ? cleanText(listing.city, 80) : null, listing.state].filter(Boolean).join(', ');
  if (place) list.push({ label: 'Location', value: place });
  const d = listing.delivered;
  if (d && delivered === 'sentence') list.push({ label: `Delivered to ${d.zip}`, value: deliveredSentence(d) });
  else if (d) {
    const about = d.precision === 'state' ? `~${Math.round(d.distanceMiles)} mi, state only` : `about ${Math.round(d.distanceMiles)} mi`;
    list.push({ label: 'Distance', value: `${about} from ${d.zip}` });
    const range = (low: number, high: number) => `${formatUsd(low)} - ${formatUsd(high)}`;
    list.push({ label: 'Haul (estimate)', value: range(d.haulLow, d.haulHigh) });
    if (d.totalLow !== null && d.totalHigh !== null) {
      const premium = d.premium !== null ? ` incl. ${formatUsd(d.premium)} buyer's premium` : '';
      list.push({ label: 'Delivered (estimate)', value: `${range(d.totalLow, d.totalHigh)}${premium}` });
    }
  }
  return list;
}

export function renderMatchEmail(input: {
  alert: MessageAlert;
  listing: MessageListing;
  event: NotificationEvent;
  appUrl: string;
  unsubscribeUrl: string;
  now: Date;
}): RenderedEmail {
  const { alert, listing, appUrl, now } = input;
  const title = cleanText(listing.title);
  const price = listing.priceUsd === null ? null : formatUsd(listing.priceUsd);
  const subject = cleanText(
    input.event === 'price_drop'
      ? `Price drop: ${title}${price ? ` now ${price}` : ''}`
      : input.event === 'level_up' && listing.dealScore !== null
        ? `Now ${articleFor(dealLevelLabel(listing.dealScore))} ${dealLevelLabel(listing.dealScore)}: ${title}${price ? ` at ${price}` : ''}`
        : `Deal alert: ${title}${price ? ` at ${price}` : ''}${listing.dealScore !== null ? ` (${dealScoreText(listing.dealScore)})` : ''}`,
    300,
  );
  const intro =
    input.event === 'price_drop'
      ? `The price dropped on a listing that matches your ${alert.equipmentType} alert.`
      : input.event === 'level_up'
        ? `A listing that matches your ${alert.equipmentType} alert is now a better deal.`
        : `A listing matches your ${alert.equipmentType} alert.`;
  const link = dealUrl(appUrl, listing.slug);
  const rows = facts(listing, now);
  const why = criteriaText(alert);
  const footer = emailFooter(`You get this e-mail because of your Deal Radar alert for ${alert.equipmentType}.`, { label: 'Turn this alert off', url: input.unsubscribeUrl });

  const text = [
    intro,
    '',
    title,
    ...rows.map((f) => `${f.label}: ${f.value}`),
    '',
    `Why it matched: ${why}`,
    '',
    `View the deal: ${link}`,
    '',
    ...footer.text,
  ].join('\n');

  const html = emailHtml([
    `<p>${escapeHtml(intro)}</p>`,
    `<h2 style="margin:0 0 8px">${escapeHtml(title)}</h2>`,
    ...factsTableHtml(rows),
    `<p><strong>Why it matched:</strong> ${escapeHtml(why)}</p>`,
    `<p><a href="${escapeHtml(link)}">View the deal</a></p>`,
    footer.html,
  ]);
  return { subject, text, html };
}

function articleFor(label: string): string {
  return /^[AEIOU]/.test(label) ? 'an' : 'a';
}

/** GSM 03.38's basic characters: an SMS of these alone is one 160-character segment. */
const GSM_BASIC = new Set("@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà");
const GSM_LOOKALIKES: Record<string, string> = { '‘': "'", '’': "'", '‚': "'", '′': "'", '“': '"', '”': '"', '„': '"', '″': '"', '–': '-', '—': '-', '−': '-', '…': '...', '×': 'x', '•': '-', '\u00a0': ' ' };

/**
 * SMS text in GSM 03.38's basic alphabet. One character outside it (a title's ’ or ″, our own …)
 * sends the whole message as UCS-2: 70 characters a segment, so a 159-character alert costs three
 * SMS. Lookalikes are replaced, accents dropped where that finds a basic letter, the rest left out.
 */
export function gsmText(value: string): string {
  let out = '';
  for (const ch of value) {
    if (GSM_BASIC.has(ch)) out += ch;
    else if (GSM_LOOKALIKES[ch] !== undefined) out += GSM_LOOKALIKES[ch];
    else {
      const bare = ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      if ([...bare].every((c) => GSM_BASIC.has(c))) out += bare;
    }
  }
  return out;
}

/** Fits `template(title)` under the SMS limit by shortening the title only; the text is GSM-7 (one segment). */
function fitSms(title: string, template: (title: string) => string): string {
  let t = gsmText(title).trim();
  let body = gsmText(template(t));
  while (body.length > SMS_MAX_LENGTH && t.length > 0) {
    t = t.slice(0, Math.max(0, t.length - (body.length - SMS_MAX_LENGTH) - 3)).trimEnd();
    body = gsmText(template(t.length > 0 ? `${t}...` : ''));
  }
  return body.length > SMS_MAX_LENGTH ? body.slice(0, SMS_MAX_LENGTH) : body;
}

/** Dollars in few characters for SMS: $950, $62k, $62.5k, $1.25M. */
export function compactUsd(n: number): string {
  const v = Math.round(n);
  if (v < 1_000) return `$${v}`;
  const trim = (x: number, digits: number) => String(Number(x.toFixed(digits)));
  if (v < 999_500) return `$${trim(v / 1_000, v < 100_000 ? 1 : 0)}k`;
  return `$${trim(v / 1_000_000, v < 10_000_000 ? 2 : 1)}M`;
}

/** The valuation's range for SMS, sharing the unit when both ends have it: '$55-70k'. */
function compactRange(low: number, high: number): string {
  const a = compactUsd(low);
  const b = compactUsd(high);
  const unit = (x: string) => x.slice(-1);
  return unit(a) === unit(b) && /[kM]/.test(unit(a)) ? `${a.slice(0, -1)}-${b.slice(1)}` : `${a}-${b}`;
}

/** Keywords in an SMS are bounded so the criteria leave room for the lot. */
const SMS_KEYWORDS_MAX = 24;

/** The alert's criteria as few characters as they can be said: 'Excavators, to $50k, TX, score 80+, "cat"'. */
export function smsCriteriaText(alert: MessageAlert): string {
  const price =
    alert.priceMin !== null && alert.priceMax !== null
      ? compactRange(alert.priceMin, alert.priceMax)
      : alert.priceMin !== null
        ? `from ${compactUsd(alert.priceMin)}`
        : alert.priceMax !== null
          ? `to ${compactUsd(alert.priceMax)}`
          : null;
  const level = alert.minDealScore !== null ? `score ${alert.minDealScore}+` : alert.dealLevel === 'excellent' ? 'excellent only' : 'good+';
  const parts = [alert.equipmentType, price, alert.state, alert.condition, level, alert.includeUnscored ? '+unscored' : null];
  if (alert.keywords) parts.push(`"${cleanText(alert.keywords, SMS_KEYWORDS_MAX)}"`);
  // the radius in short (the buyer knows their ZIP code; the distance stands beside the price)
  if (alert.nearZip && alert.radiusMiles) parts.push(`<${alert.radiusMiles}mi`);
  if (alert.nearZip && alert.worthTheTrip) parts.push('worth trip');
  return parts.filter(Boolean).join(', ');
}

/**
 * One SMS (≤ SMS_MAX_LENGTH): what the lot is (price, score, how far under similar sales and how
 * sure — else the fair value's range —, fair value, time left),
 * why it was sent (the alert's criteria, compact) and the short link. The title is shortened
 * first; only if the rest alone is too long is the end of the criteria cut.
 */
export function renderMatchSms(input: { alert: MessageAlert; listing: MessageListing; event: NotificationEvent; appUrl: string; now: Date }): string {
  // How far under and how sure stay even beside the price delivered (the claim is what the buyer
  // acts on): the title and the criteria's end give way first. Only when the criteria would be cut
  // to almost nothing does the claim drop its "how sure".
  const full = matchSms(input, false);
  return input.listing.delivered && full.whyKept < SMS_WHY_KEEP ? matchSms(input, true).text : full.text;
}

/** The criteria characters ("Why: Excav") an SMS keeps before its claim gives up "how sure". */
const SMS_WHY_KEEP = 10;

function matchSms(input: { alert: MessageAlert; listing: MessageListing; event: NotificationEvent; appUrl: string; now: Date }, shortClaim: boolean): { text: string; whyKept: number } {
  const { listing } = input;
  const head = input.event === 'price_drop' ? 'Price drop' : input.event === 'level_up' ? 'Better deal' : 'Deal Radar';
  const fullClaim = dealClaimShort({ priceUsd: listing.priceUsd, buyersPremiumPct: listing.buyersPremiumPct, fairValue: listing.fairValue, dealScore: listing.dealScore });
  const claim = shortClaim && fullClaim ? fullClaim.split(', ')[0]! : fullClaim;
  const facts = [
    listing.priceUsd === null ? null : formatUsd(listing.priceUsd),
    listing.dealScore === null ? null : `${badgeScore(listing.dealScore)} ${dealLevelLabel(listing.dealScore).replace(' Deal', '')}`,
    claim,
    goodUpTo(listing.goodBidLimit),
    // the claim says how far under similar sales and how sure; without one, the fair value and its range
    listing.fairValue === null || claim
      ? null
      : `fair ${compactUsd(listing.fairValue)}${listing.valueLow != null && listing.valueHigh != null ? ` (${compactRange(listing.valueLow, listing.valueHigh)})` : ''}`,
    (() => {
      const left = timeLeft(listing.auctionEndAt, input.now);
      return left ? (left === 'Ended' ? left : `${left} left`) : null;
    })(),
    // with the alert's ZIP code: how far, and what it costs delivered there
    listing.delivered ? deliveredSms(listing.delivered) : null,
  ]
    .filter(Boolean)
    .join(', ');
  const link = shortDealUrl(input.appUrl, listing.id);
  let why = gsmText(`Why: ${smsCriteriaText(input.alert)}`);
  const body = (title: string) => `${head}: ${title}${title ? ' ' : ''}${facts}. ${why} ${link}`.replace(/\s+/g, ' ');
  // The why stays: should even an empty title not fit, the criteria's end is cut before the link.
  // With the distance and price delivered the facts are longer: the title keeps its first
  // characters (what the machine is) and the criteria's end gives way first.
  const title = cleanText(listing.title, 120);
  const reserve = listing.delivered ? Math.min(SMS_TITLE_KEEP, gsmText(title).length) : 0;
  const over = body('x'.repeat(reserve)).length - SMS_MAX_LENGTH;
  if (over > 0) why = `${why.slice(0, Math.max(0, why.length - over - 3)).trimEnd()}...`;
  return { text: fitSms(title, body), whyKept: why.endsWith('...') ? why.length - 3 : why.length };
}

/** The characters of a title an SMS with a delivered estimate keeps ('CAT 320D Exca...'). */
const SMS_TITLE_KEEP = 16;

export type DigestItem = { listing: MessageListing; event: NotificationEvent };

/** Issue #22: a digest shows the best 20 deals and links to the rest. */
export const DIGEST_MAX_ITEMS = 20;

const eventTag = (event: NotificationEvent) => (event === 'price_drop' ? '[price drop] ' : event === 'level_up' ? '[better deal] ' : '');

export function renderDigestEmail(input: { alert: MessageAlert; items: DigestItem[]; day: string; appUrl: string; unsubscribeUrl: string; now: Date }): RenderedEmail {
  const { alert, items, appUrl, now } = input;
  const count = items.length;
  const subject = `Daily digest: ${count} ${count === 1 ? 'match' : 'matches'} for your ${alert.equipmentType} alert`;
  // Best deals first whatever order the caller gave (unscored lots last).
  const shown = [...items].sort((a, b) => (b.listing.dealScore ?? -1) - (a.listing.dealScore ?? -1)).slice(0, DIGEST_MAX_ITEMS);
  const more = count - shown.length;
  const why = criteriaText(alert);
  const footer = emailFooter(`You get this daily e-mail because of your Deal Radar alert for ${alert.equipmentType}.`, { label: 'Turn this alert off', url: input.unsubscribeUrl });
  const textItems = shown.map(({ listing, event }, i) => {
    const lines = facts(listing, now, 'sentence').map((f) => `   ${f.label}: ${f.value}`);
    return [`${i + 1}. ${eventTag(event)}${cleanText(listing.title)}`, ...lines, `   ${dealUrl(appUrl, listing.slug)}`].join('\n');
  });
  const text = [
    `${count} ${count === 1 ? 'listing' : 'listings'} matched your ${alert.equipmentType} alert on ${input.day} (UTC).`,
    `Why they matched: ${why}`,
    '',
    ...textItems.flatMap((t) => [t, '']),
    ...(more > 0 ? [`…and ${more} more: ${appUrl}/alerts`, ''] : []),
    ...footer.text,
  ].join('\n');
  const html = emailHtml([
    `<p>${escapeHtml(`${count} ${count === 1 ? 'listing' : 'listings'} matched your ${alert.equipmentType} alert on ${input.day} (UTC).`)}</p>`,
    `<p><strong>Why they matched:</strong> ${escapeHtml(why)}</p>`,
    ...shown.map(({ listing, event }) =>
      [
        `<h3 style="margin:16px 0 4px">${eventTag(event)}<a href="${escapeHtml(dealUrl(appUrl, listing.slug))}">${escapeHtml(cleanText(listing.title))}</a></h3>`,
        ...factsTableHtml(facts(listing, now, 'sentence'), 'cellpadding="2"'),
      ].join('\n'),
    ),
    ...(more > 0 ? [`<p>…and ${more} more on <a href="${escapeHtml(`${appUrl}/alerts`)}">your alerts page</a>.</p>`] : []),
    footer.html,
  ]);
  return { subject, text, html };
}

export function renderDigestSms(input: { alert: MessageAlert; items: DigestItem[]; appUrl: string }): string {
  const count = input.items.length;
  const best = [...input.items].sort((a, b) => (b.listing.dealScore ?? -1) - (a.listing.dealScore ?? -1))[0]!.listing;
  const price = `${best.priceUsd === null ? '' : ` ${formatUsd(best.priceUsd)}`}${goodUpTo(best.goodBidLimit) ? `, ${goodUpTo(best.goodBidLimit)}` : ''}`;
  const delivered = best.delivered ? ` (${deliveredSms(best.delivered)})` : '';
  const link = `${input.appUrl}/alerts`;
  return fitSms(
    cleanText(best.title, 100),
    (title) => `Deal Radar: ${count} new ${input.alert.equipmentType} ${count === 1 ? 'match' : 'matches'} today. Top: ${title}${price}${delivered} ${link}`.replace(/\s+/g, ' '),
  );
}
