/** HTML and JSON of the demo auction site. Every value is escaped: lot texts are data. */
import { CATEGORY_NAMES } from './demo-catalog.js';
import type { LotView } from './demo-auction.js';

export const PAGE_SIZE = 24;

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 0 })}`;

function layout(title: string, body: string, extraHead = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} | Iron Ridge Demo Auctions</title>
<meta name="viewport" content="width=device-width, initial-scale=1">${extraHead}
<style>body{font-family:system-ui,sans-serif;margin:0;background:#f5f5f4;color:#1c1917}header{background:#b45309;color:#fff;padding:12px 24px}
main{max-width:1100px;margin:0 auto;padding:16px}.lots{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:12px}
.lot-card{background:#fff;border-radius:8px;padding:12px}.lot-card img{width:100%;height:140px;object-fit:cover;background:#e7e5e4}
.badge{display:inline-block;padding:2px 6px;border-radius:4px;background:#e7e5e4;font-size:12px}dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}</style>
</head><body><header><strong>Iron Ridge Demo Auctions</strong> — a demonstration site bundled with Deal Radar; nothing here is for sale.</header><main>${body}</main></body></html>`;
}

function statusLabel(view: LotView): string {
  return { upcoming: 'Upcoming', open: 'Open', sold: 'Sold', closed: 'Closed — no sale' }[view.state];
}

export function listPage(views: LotView[], page: number, baseUrl: string): string {
  const pages = Math.max(1, Math.ceil(views.length / PAGE_SIZE));
  const slice = views.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const cards = slice
    .map(
      (v) => `<li class="lot-card" data-lot-id="${escapeHtml(v.lot.id)}" data-status="${v.state}">
  <a class="lot-link" href="/lots/${encodeURIComponent(v.lot.id)}"><img src="${baseUrl}/images/${encodeURIComponent(v.lot.id)}/1.svg" alt="${escapeHtml(v.lot.machine.title)}">
  <span class="lot-title">${escapeHtml(v.lot.machine.title)}</span></a>
  <div><span class="badge">${statusLabel(v)}</span> <span class="current-price" data-amount="${v.price}">${usd(v.price)}</span> <span class="bid-count">${v.bidCount} bids</span></div>
  <time class="ends" datetime="${new Date(v.statedEndsAt).toISOString()}">Ends ${new Date(v.statedEndsAt).toUTCString()}</time>
</li>`,
    )
    .join('\n');
  const prev = page > 1 ? `<a rel="prev" href="/auctions?page=${page - 1}">Previous</a>` : '';
  const next = page < pages ? `<a rel="next" href="/auctions?page=${page + 1}">Next</a>` : '';
  return layout(
    `Equipment auctions — page ${page}`,
    `<h1>Equipment auctions</h1><p class="result-count">${views.length} lots · page ${page} of ${pages}</p>
<ul class="lots">${cards}</ul><nav class="pagination" data-pages="${pages}">${prev} ${next}</nav>`,
  );
}

/** The lot's public data, as the JSON endpoints and the JSON-LD block show it. */
export function lotJson(view: LotView, baseUrl: string) {
  const { lot } = view;
  const m = lot.machine;
  return {
    id: lot.id,
    lot_number: lot.number,
    url: `${baseUrl}/lots/${lot.id}`,
    title: m.title,
    make: m.make,
    model: m.model,
    year: m.year,
    hours: m.hours,
    condition: lot.condition,
    category: CATEGORY_NAMES[m.categoryId],
    city: m.city,
    state: m.state,
    currency: 'USD',
    status: view.state,
    starting_bid: lot.startingBid,
    current_bid: view.currentBid,
    bid_count: view.bidCount,
    sold_price: view.state === 'sold' ? lot.finalPrice : null,
    buyers_premium_pct: lot.buyersPremiumPct,
    ends_at: new Date(view.statedEndsAt).toISOString(),
    images: Array.from({ length: lot.imageCount }, (_, i) => `${baseUrl}/images/${lot.id}/${i + 1}.svg`),
    description: m.description,
  };
}

function lotArticle(view: LotView, baseUrl: string): string {
  const data = lotJson(view, baseUrl);
  const spec = (label: string, value: unknown, cls: string) =>
    value === null || value === undefined || value === '' ? '' : `<dt>${label}</dt><dd class="${cls}">${escapeHtml(value)}</dd>`;
  return `<article class="lot" data-lot-id="${escapeHtml(data.id)}" data-status="${data.status}">
<h1 class="lot-title">${escapeHtml(data.title)}</h1>
<p><span class="badge lot-status">${statusLabel(view)}</span> Lot #${data.lot_number}</p>
<div class="bid-box">
  ${data.current_bid !== null ? `<p>Current bid <strong class="current-bid" data-amount="${data.current_bid}">${usd(data.current_bid)}</strong></p>` : ''}
  <p>Starting bid <span class="starting-bid" data-amount="${data.starting_bid}">${usd(data.starting_bid)}</span> · <span class="bid-count" data-count="${data.bid_count}">${data.bid_count} bids</span></p>
  ${data.sold_price !== null ? `<p>Sold for <strong class="sold-price" data-amount="${data.sold_price}">${usd(data.sold_price)}</strong></p>` : ''}
  <p><span class="buyers-premium" data-pct="${data.buyers_premium_pct}">${data.buyers_premium_pct}% buyer's premium</span> · <time class="ends" datetime="${data.ends_at}">${data.status === 'open' ? 'Ends' : 'Ended'} ${escapeHtml(new Date(data.ends_at).toUTCString())}</time></p>
</div>
<dl class="lot-specs">${spec('Year', data.year, 'spec-year')}${spec('Make', data.make, 'spec-make')}${spec('Model', data.model, 'spec-model')}${spec('Hours', data.hours, 'spec-hours')}${spec('Condition', data.condition, 'spec-condition')}${spec('Category', data.category, 'spec-category')}${spec('City', data.city, 'spec-city')}${spec('State', data.state, 'spec-state')}</dl>
<div class="gallery">${data.images.map((src) => `<img src="${escapeHtml(src)}" alt="">`).join('')}</div>
<section class="description"><h2>Description</h2><p>${escapeHtml(data.description).replace(/\n/g, '<br>')}</p></section>
</article>`;
}

export function detailPage(view: LotView, baseUrl: string): string {
  const jsonLd = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: view.lot.machine.title, sku: view.lot.id }).replace(/</g, '\\u003c');
  return layout(view.lot.machine.title, lotArticle(view, baseUrl), `<script type="application/ld+json">${jsonLd}</script>`);
}

/** The same lot rendered in the browser by script: what a JavaScript-only auction site serves. */
export function liveDetailPage(view: LotView, baseUrl: string): string {
  const html = JSON.stringify(lotArticle(view, baseUrl)).replace(/</g, '\\u003c');
  return layout('Loading…', `<div id="app">Loading lot…</div><script>setTimeout(function(){document.getElementById('app').innerHTML=${html};document.title='Lot';},50);</script>`);
}

export function imageSvg(id: string, n: number): string {
  const hue = [...id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, n * 47);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400" viewBox="0 0 640 400"><rect width="640" height="400" fill="hsl(${hue},35%,55%)"/><text x="320" y="210" font-family="sans-serif" font-size="36" text-anchor="middle" fill="#fff">${escapeHtml(id)} · photo ${n}</text></svg>`;
}
