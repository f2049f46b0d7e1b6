/**
 * Which market a sale or listing belongs to. Dealer and contractor machines at live unreserved
 * auctions (Fast Iron's records, Ritchie Bros.) fetch one level of prices; online surplus auctions
 * (West Auctions, the government surplus sites) another, with wider scatter. The model reads the
 * market as a feature, and the price index measures the market level over time in one market only
 * (price-index.ts): a period that only one market sold in cannot tell its level from that market's
 * premium.
 */
export const DEALER_AUCTION = 'dealer-auction';
export const ONLINE_SURPLUS = 'online-surplus';

/**
 * Sources selling dealer and contractor machines at live or timed unreserved equipment auctions;
 * every other source is online surplus. The demo site sells machines drawn from Ritchie Bros.'
 * results, so it is valued as that market.
 */
const DEALER_AUCTION_SOURCES = new Set(['fastiron', 'rbauction', 'demo', 'purplewave', 'bidspotter']);

/** A source's market (`fastiron` for records that name no source, as `saleSource` reads them). */
export function sourceMarket(source: string | null | undefined): string {
  return DEALER_AUCTION_SOURCES.has((source ?? 'fastiron').toLowerCase()) ? DEALER_AUCTION : ONLINE_SURPLUS;
}

/** The market of a sale or listing: as its conversion states it, else from its `source` (none: a Fast Iron record). */
export function saleMarket(r: { attributes: Record<string, unknown> }): string {
  const stated = r.attributes.market;
  if (stated === DEALER_AUCTION || stated === ONLINE_SURPLUS) return stated;
  const source = r.attributes.source;
  return sourceMarket(typeof source === 'string' && source ? source : 'fastiron');
}
