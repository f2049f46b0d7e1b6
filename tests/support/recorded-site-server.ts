/**
 * A local stand-in for one real auction site: an HTTP server on 127.0.0.1 that answers the
 * requests an adapter makes (same paths, methods, query strings and bodies as the real site)
 * with the real recorded responses under `<SHARED_DIR>/fixtures/sites/<site>/`, read at run
 * time. Where upstream saved a response's items one by one (West Auctions) or wrapped them
 * (Ritchie Bros., GovDeals detail), the server rebuilds the response envelope around the
 * unmodified items; it never changes an item. Every request is recorded for assertions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import type { Config } from '../../services/shared/config.js';
import { repoSitesDir, sitesDir, testConfig } from './recorded-sites.js';

export type RecordedRequest = { method: string; path: string; query: URLSearchParams; headers: IncomingMessage['headers']; body: string };

export type RecordedSite = {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

type Reply = { status?: number; type?: string; body: string } | null;
type Route = (req: RecordedRequest, files: SiteFiles) => Reply;

class SiteFiles {
  constructor(private readonly dir: string) {}
  names(): string[] {
    return readdirSync(this.dir).sort();
  }
  text(name: string): string {
    return readFileSync(path.join(this.dir, name), 'utf8');
  }
  json<T = unknown>(name: string): T {
    return JSON.parse(this.text(name)) as T;
  }
}

const json = (value: unknown, status = 200): Reply => ({ status, type: 'application/json; charset=utf-8', body: typeof value === 'string' ? value : JSON.stringify(value) });
const html = (body: string): Reply => ({ type: 'text/html; charset=utf-8', body });

function formField(body: string, name: string): string | null {
  const urlEncoded = new URLSearchParams(body).get(name);
  if (urlEncoded !== null) return urlEncoded;
  const multipart = new RegExp(`name="${name}"\\r?\\n\\r?\\n([^\\r\\n]*)`).exec(body);
  return multipart ? multipart[1]! : null;
}

function jsonBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

const MUNICIBID_NEXT = new SiteFiles(path.join(repoSitesDir(), 'municibid-next'));

const WEST_ITEMS_PER_PAGE = 12;
const RB_PAGE_SIZE = 60;

const ROUTES: Record<string, Route> = {
  gsaauctions: (req, files) => {
    if (req.method !== 'GET' || req.path !== '/assets/gsaauctions/v2/auctions') return null;
    // api.data.gov's answer without a key.
    if (!req.headers['x-api-key']) return json({ error: { code: 'API_KEY_MISSING', message: 'No api_key was supplied.' } }, 403);
    return json(files.text('api-v2-auctions_Results_SELECTED-20-items_BlackWhole_discover_sample.json'));
  },

  govdeals: (req, files) => {
    if (req.method === 'POST' && req.path === '/search/list') {
      const page = Number((jsonBody(req.body) as { page?: number } | null)?.page ?? 0);
      return page === 1 ? json(files.text('api-search-list-page_assetSearchResults_BlackWhole_maestro_page.json')) : json([]);
    }
    const detail = /^\/assets\/(\d+)\/(\d+)\/false$/.exec(req.path);
    if (req.method === 'POST' && detail && detail[1] === '5282' && detail[2] === '3780') {
      // The file wraps the raw response with the upstream author's note: serve the response itself.
      return json(files.json<{ detail: unknown }>('api-asset-detail-5282-3780_BlackWhole.json').detail);
    }
    return null;
  },

  purplewave: (req, files) => {
    if (req.method !== 'GET' || req.path !== '/v1/search/search') return null;
    const page = Number(req.query.get('page') ?? '1');
    if (req.query.get('dateType') === 'past' && page === 1) return json(files.text('api-v1-search-search_sold-dateType-past_TRIMMED-6-items_BlackWhole_sold_sweep.json'));
    return json([]);
  },

  municibid: (req, files) => {
    if (req.method !== 'GET') return null;
    // The redesigned site (recorded pages kept in the repository): browse page 1, two listing
    // pages, and its not-found page (a Next.js site renders it with the rest of its template) for
    // any other listing.
    if (req.path === '/browse' && (req.query.get('page') ?? '0') === '0') return html(MUNICIBID_NEXT.text('browse_desks_chairs_active.html'));
    if (req.path === '/listing/86233903') return html(MUNICIBID_NEXT.text('detail_active_86233903.html'));
    if (req.path === '/listing/86003942') return html(MUNICIBID_NEXT.text('detail_closed_unsuccessful_86003942.html'));
    if (/^\/listing\/\d+(\/[a-z0-9-]+)?$/.test(req.path)) return html(MUNICIBID_NEXT.text('detail_not_found.html'));
    if (req.path === '/Search/Results' && (req.query.get('page') ?? '1') === '1') return html(files.text('search-results-active-chairs_TRIMMED_BlackWhole_discover_active_chairs.html'));
    if (req.path === '/Listing/Details/84516049') return html(files.text('detail-active-84516049_TRIMMED_BlackWhole.html'));
    if (req.path === '/Listing/Details/82394410') return html(files.text('detail-closed-sold-82394410_TRIMMED_BlackWhole.html'));
    return null;
  },

  publicsurplus: (req, files) => {
    if (req.method === 'GET' && req.path === '/sms/auction/view' && req.query.get('auc') === '4053470') return html(files.text('detail-active-with-bids-4053470_EXCERPT_BlackWhole.html'));
    return null;
  },

  bidspotter: (req, files) => {
    if (req.method === 'GET' && req.path === '/en-us/search-results' && (req.query.get('page') ?? '1') === '1') {
      return html(files.text('search-results-chairs_TRIMMED-3-cards_BlackWhole_bidspotter_search_chairs.html'));
    }
    if (req.method === 'POST' && req.path === '/en-us/lot/reload-timed-bid-info') {
      const asked = new Set(((jsonBody(req.body) as { LotId?: string }[] | null) ?? []).map((r) => String(r?.LotId ?? '').toLowerCase()));
      const rows = files.json<{ Model: { LotId: string } }[]>('api-lot-bidinfo_BlackWhole_bidspotter_bid_info.json');
      return json(rows.filter((r) => asked.has(r.Model.LotId.toLowerCase())));
    }
    return null;
  },

  rbauction: (req, files) => {
    if (req.method === 'POST' && req.path === '/api/search') return json(files.text('api-search-aggregations_GabriFarace_response.json'));
    const nextData = /^\/_next\/data\/[^/]+\/en-US\/cp\/([a-z0-9-]+)\.json$/.exec(req.path);
    if (req.method !== 'GET' || !nextData) return null;
    type Wrapper = { subcategories: { url: string; price_elements: unknown[] }[] };
    const sub = files.json<Wrapper>('nextdata-cp-sold-records_excavators_GabriFarace_data.json').subcategories.find((s) => s.url.endsWith(`/cp/${nextData[1]}`));
    if (!sub) return null;
    const from = Number(req.query.get('from') ?? '0');
    const records = sub.price_elements.slice(from, from + RB_PAGE_SIZE);
    // The records are the unmodified `pageProps.data.results.records` upstream saved; the envelope is rebuilt.
    return json({ pageProps: { data: { results: { totalAmount: sub.price_elements.length, returnedAmount: records.length, records } } } });
  },

  'other-sierraauction': (req, files) => {
    const lot = /^\/auctions\/(\d+)\/lot\/(\d+)(?:-[a-z0-9-]*)?$/.exec(req.path);
    if (req.method !== 'GET' || !lot) return null;
    const file = files.names().find((name) => name.startsWith(`lot-detail-${lot[2]}-`));
    return file ? html(files.text(file)) : null;
  },

  westauction: (req, files) => {
    if (req.method === 'POST' && req.path === '/api/auctions') {
      const page = Number(formField(req.body, 'page') ?? '1');
      const auctions = page === 1 ? files.names().filter((n) => /^auction_\d+\.json$/.test(n)).map((n) => files.json(n)) : [];
      return json({ result: 'success', data: auctions });
    }
    const items = /^\/api\/auctions\/(\d+)\/items$/.exec(req.path);
    if (req.method === 'POST' && items) {
      const page = Math.max(1, Number(formField(req.body, 'page') ?? '1'));
      const lots = files
        .names()
        .filter((n) => new RegExp(`^${items[1]}_lot_\\d+\\.json$`).test(n))
        .map((n) => files.json(n));
      return json({ result: 'success', data: lots.slice((page - 1) * WEST_ITEMS_PER_PAGE, page * WEST_ITEMS_PER_PAGE) });
    }
    const images = /^\/api\/auctions\/(\d+)\/items\/(\d+)\/images$/.exec(req.path);
    if (req.method === 'GET' && images) {
      const name = `${images[1]}_lot_${images[2]}_images.json`;
      return files.names().includes(name) ? json(files.text(name)) : null;
    }
    return null;
  },
};

export const RECORDED_SITES = Object.keys(ROUTES);

/**
 * Starts the stand-in for `site` on a free 127.0.0.1 port. No robots.txt of these sites is
 * recorded: `/robots.txt` is 404 (no rules) unless a test passes one.
 */
export async function startRecordedSite(site: string, config: Config = testConfig(), opts: { robotsTxt?: string } = {}): Promise<RecordedSite> {
  const route = ROUTES[site];
  if (!route) throw new Error(`no recorded routes for site "${site}"`);
  const files = new SiteFiles(path.join(sitesDir(config), site));
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      let reply: Reply;
      try {
        reply = recorded.path === '/robots.txt' ? (opts.robotsTxt === undefined ? null : { type: 'text/plain', body: opts.robotsTxt }) : route(recorded, files);
      } catch (err) {
        reply = { status: 500, type: 'text/plain', body: String(err) };
      }
      reply ??= { status: 404, type: 'text/plain', body: 'not recorded' };
      res.writeHead(reply.status ?? 200, { 'content-type': reply.type ?? 'text/plain' });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('recorded site server has no port');
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
