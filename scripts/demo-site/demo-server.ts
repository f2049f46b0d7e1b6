/**
 * The demo auction site: a node:http server over a DemoAuction. Pages: `/auctions?page=N`
 * (list, 24 a page), `/lots/:id` (detail), `/live/lots/:id` (the same rendered by JavaScript),
 * `/api/lots?page=N` and `/api/lots/:id` (JSON), `/images/:id/:n.svg`, `/robots.txt`.
 * Control (loopback only): `POST /_control/publish {"lot_id"?, "price"?, "hours_left"?}` publishes a
 * lot now (closing in `hours_left` demo hours, else its own duration of at least two days; its
 * stated end is the real time it closes) and returns its id and URL; `POST /_control/advance {"minutes"}` moves the clock; `GET /_control/state`
 * (with the alert walkthrough's lot); `GET /_control/requests?since=<epoch ms>` summarises the page
 * requests it answered (request-log.ts: in flight at once, gaps, clients).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DemoAuction, type DemoAuctionOptions, type Walkthrough } from './demo-auction.js';
import { loadCatalog, type CatalogMachine } from './demo-catalog.js';
import { detailPage, imageSvg, listPage, liveDetailPage, lotJson, PAGE_SIZE } from './demo-pages.js';
import { RequestLog } from './request-log.js';

export type DemoSite = {
  url: string;
  port: number;
  auction: DemoAuction;
  close(): Promise<void>;
};

export const DEMO_ROBOTS_TXT = 'User-agent: *\nDisallow: /_control/\nAllow: /\n';

/** The site's robots.txt, with a `Crawl-delay` when one is asked for (seconds). */
export function demoRobotsTxt(crawlDelaySeconds = 0): string {
  return crawlDelaySeconds > 0 ? `${DEMO_ROBOTS_TXT}Crawl-delay: ${crawlDelaySeconds}\n` : DEMO_ROBOTS_TXT;
}

/** The walkthrough's lot as `GET /_control/state` tells it (the compose smoke publishes it). */
function walkthroughJson(pick: Walkthrough | undefined) {
  if (!pick) return null;
  return { lot_id: pick.lot.id, title: pick.lot.machine.title, category_id: pick.lot.machine.categoryId, state: pick.state, price: pick.price, hours_left: pick.hoursLeft };
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 10_000) throw new Error('body too large');
  }
  if (!body.trim()) return {};
  const parsed: unknown = JSON.parse(body);
  return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
}

function pageParam(url: URL): number {
  const page = Number(url.searchParams.get('page') ?? '1');
  return Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1;
}

export async function startDemoSite(
  options: Partial<DemoAuctionOptions> & {
    port?: number;
    host?: string;
    sharedDir?: string;
    catalog?: CatalogMachine[];
    /** The address its pages link to when it is reached by another name (a compose service). */
    publicUrl?: string;
    crawlDelaySeconds?: number;
  },
): Promise<DemoSite> {
  const catalog = options.catalog ?? (await loadCatalog(options.sharedDir ?? '../shared'));
  const auction = new DemoAuction(catalog, { seed: options.seed ?? 42, lots: options.lots ?? 600, speed: options.speed ?? 60, startedAt: options.startedAt, publishedShare: options.publishedShare, keepClosedMs: options.keepClosedMs });
  let baseUrl = '';
  const robotsTxt = demoRobotsTxt(options.crawlDelaySeconds);
  const requestLog = new RequestLog();

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', baseUrl);
      const path = url.pathname;
      if (path === '/robots.txt') return send(res, 200, 'text/plain; charset=utf-8', robotsTxt);
      if (!path.startsWith('/_control/')) res.once('finish', requestLog.begin(req.socket.remoteAddress ?? ''));
      if (path === '/' ) return send(res, 302, 'text/plain', 'see /auctions', { location: '/auctions' });
      if (path === '/auctions') {
        const views = auction.visible();
        const page = pageParam(url);
        if ((page - 1) * PAGE_SIZE >= views.length && page > 1) return send(res, 404, 'text/html; charset=utf-8', '<h1>No such page</h1>');
        return send(res, 200, 'text/html; charset=utf-8', listPage(views, page, baseUrl));
      }
      if (path === '/api/lots') {
        const views = auction.visible();
        const page = pageParam(url);
        return send(res, 200, 'application/json', JSON.stringify({ page, page_size: PAGE_SIZE, total: views.length, lots: views.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((v) => lotJson(v, baseUrl)) }));
      }
      let m = /^\/(lots|live\/lots|api\/lots)\/([A-Za-z0-9-]{1,40})$/.exec(path);
      if (m) {
        const lot = auction.get(m[2]!);
        const view = lot ? auction.view(lot) : undefined;
        if (!view || view.state === 'upcoming') return send(res, 404, 'text/html; charset=utf-8', '<h1>Lot not found</h1>');
        if (m[1] === 'api/lots') return send(res, 200, 'application/json', JSON.stringify(lotJson(view, baseUrl)));
        return send(res, 200, 'text/html; charset=utf-8', m[1] === 'lots' ? detailPage(view, baseUrl) : liveDetailPage(view, baseUrl));
      }
      m = /^\/images\/([A-Za-z0-9-]{1,40})\/(\d{1,2})\.svg$/.exec(path);
      if (m) return send(res, 200, 'image/svg+xml', imageSvg(m[1]!, Number(m[2])));
      if (path.startsWith('/_control/')) {
        const remote = req.socket.remoteAddress ?? '';
        if (!/^(127\.|::1$|::ffff:127\.)/.test(remote)) return send(res, 403, 'application/json', '{"detail":"control is loopback-only"}');
        if (path === '/_control/state' && req.method === 'GET') {
          const views = auction.lots.map((l) => auction.view(l));
          const count = (s: string) => views.filter((v) => v.state === s).length;
          return send(res, 200, 'application/json', JSON.stringify({ now: new Date(auction.now()).toISOString(), speed: auction.options.speed, lots: views.length, upcoming: count('upcoming'), open: count('open'), sold: count('sold'), closed: count('closed'), walkthrough: walkthroughJson(auction.walkthrough()) }));
        }
        if (path === '/_control/requests' && req.method === 'GET') return send(res, 200, 'application/json', JSON.stringify(requestLog.summary(Number(url.searchParams.get('since')) || 0)));
        if (req.method !== 'POST') return send(res, 405, 'application/json', '{"detail":"Method not allowed."}');
        let body: Record<string, unknown>;
        try {
          body = await readJson(req);
        } catch {
          return send(res, 400, 'application/json', '{"detail":"Body must be a JSON object."}');
        }
        if (path === '/_control/publish') {
          const id = typeof body.lot_id === 'string' ? body.lot_id : undefined;
          const price = typeof body.price === 'number' && Number.isFinite(body.price) && body.price > 0 ? body.price : undefined;
          const hoursLeft = body.hours_left;
          if (hoursLeft !== undefined && !(typeof hoursLeft === 'number' && hoursLeft > 0 && hoursLeft <= 24 * 30)) {
            return send(res, 400, 'application/json', '{"hours_left":["A number of hours from 0 to 720."],"detail":"A number of hours from 0 to 720."}');
          }
          const lot = auction.publishNow(id, price, hoursLeft as number | undefined);
          if (!lot) return send(res, 404, 'application/json', JSON.stringify({ detail: id ? `No lot ${id}.` : 'No upcoming lot left to publish.' }));
          const view = auction.view(lot);
          return send(res, 201, 'application/json', JSON.stringify({ id: lot.id, url: `${baseUrl}/lots/${lot.id}`, title: lot.machine.title, price: view.price, ends_at: new Date(view.statedEndsAt).toISOString() }));
        }
        if (path === '/_control/advance') {
          const minutes = Number(body.minutes);
          if (!Number.isFinite(minutes) || minutes < 0 || minutes > 60 * 24 * 365) return send(res, 400, 'application/json', '{"minutes":["A number of minutes from 0 to 525600."],"detail":"A number of minutes from 0 to 525600."}');
          return send(res, 200, 'application/json', JSON.stringify({ now: new Date(auction.advance(minutes * 60_000)).toISOString() }));
        }
      }
      return send(res, 404, 'text/html; charset=utf-8', '<h1>Not found</h1>');
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `demo site error: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = options.publicUrl?.replace(/\/+$/, '') ?? `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    port,
    auction,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
