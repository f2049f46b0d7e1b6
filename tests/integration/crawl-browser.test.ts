/**
 * The browser fetcher (playwright-core driving the system Chromium) on a demo page that only
 * shows its lot once JavaScript has run: the HTTP fetcher sees no lot, the browser does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { ParseError, type FetchedPage } from '../../services/crawler/adapter.js';
import { parseDemoDetailPage } from '../../services/crawler/adapters/demo-adapter.js';
import { BrowserFetcher } from '../../services/crawler/fetchers/browser-fetcher.js';
import { FetchRefusedError, httpFetch, userAgent, type FetchPolicy } from '../../services/crawler/fetchers/http-fetcher.js';
import { startTestDemoSite } from '../support/crawl-harness.js';

let site: DemoSite;
const browser = new BrowserFetcher(2);

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 10, publishedShare: 1 });
});

afterAll(async () => {
  await browser.close();
  await site?.close();
});

const policy = (): FetchPolicy => ({
  allowedHosts: [new URL(site.url).host],
  allowOnlyLoopback: true,
  userAgent: userAgent('https://example.org/contact'),
  timeoutMs: 15_000,
  maxBytes: 2_000_000,
});

const asPage = (url: string, body: string): FetchedPage => ({ step: { label: 'detail', url }, url, status: 200, contentType: 'text/html', body, fetchedAt: new Date() });

describe('browser fetcher', () => {
  it('renders a JavaScript-only lot page that plain HTTP cannot read', async () => {
    const view = site.auction.visible()[0]!;
    const url = `${site.url}/live/lots/${view.lot.id}`;

    const plain = await httpFetch({ url }, policy());
    expect(() => parseDemoDetailPage(asPage(url, plain.body))).toThrow(ParseError);

    const rendered = await browser.fetch(url, policy(), { waitForSelector: 'article.lot' });
    expect(rendered.status).toBe(200);
    const [lot] = parseDemoDetailPage(asPage(url, rendered.body)).listings;
    expect(lot).toMatchObject({ externalId: view.lot.id, title: view.lot.machine.title });

    // The same host policy applies: a foreign page is refused before Chromium is asked.
    await expect(browser.fetch('https://www.ritchiebros.com/', policy())).rejects.toBeInstanceOf(FetchRefusedError);
  });
});
