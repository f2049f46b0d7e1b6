/**
 * The browser fetcher for sites that render with JavaScript: playwright-core driving the system
 * Chromium, started on first use, a small pool of pages (one context per fetch, closed whatever
 * happens), every sub-request checked against the same host policy as the HTTP fetcher.
 */
import { chromium, type Browser } from 'playwright-core';
import { RetryableError, errorMessage } from '../../shared/errors.js';
import { assertFetchable, FetchRefusedError, type FetchPolicy, type HttpResponse } from './http-fetcher.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export class BrowserFetcher {
  private browser: Promise<Browser> | undefined;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly poolSize: number) {}

  private launch(): Promise<Browser> {
    this.browser ??= chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true }).catch((err: unknown) => {
      this.browser = undefined;
      throw err;
    });
    return this.browser;
  }

  private async acquire(): Promise<void> {
    if (this.active < this.poolSize) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  async fetch(url: string, policy: FetchPolicy, opts: { waitForSelector?: string } = {}): Promise<HttpResponse> {
    assertFetchable(url, policy);
    await this.acquire();
    const browser = await this.launch().catch((err: unknown) => {
      this.release();
      throw new RetryableError(`browser did not start: ${errorMessage(err)}`);
    });
    let context;
    try {
      context = await browser.newContext({ userAgent: policy.userAgent, javaScriptEnabled: true });
    } catch (err) {
      this.release();
      throw new RetryableError(`browser context failed: ${errorMessage(err)}`);
    }
    let refused: string | undefined;
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(policy.timeoutMs);
      await page.route('**/*', async (route) => {
        try {
          assertFetchable(route.request().url(), policy);
          await route.continue();
        } catch (err) {
          if (route.request().isNavigationRequest()) refused = errorMessage(err);
          await route.abort('blockedbyclient');
        }
      });
      let response;
      try {
        response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: policy.timeoutMs });
      } catch (err) {
        if (refused) throw new FetchRefusedError(refused);
        throw new RetryableError(`browser ${url}: ${errorMessage(err)}`);
      }
      if (refused) throw new FetchRefusedError(refused);
      if (opts.waitForSelector && response && response.status() < 400) {
        await page.waitForSelector(opts.waitForSelector, { timeout: policy.timeoutMs }).catch(() => {
          // Rendered without the expected element: the handler reports the parse error.
        });
      }
      const html = (await page.content()).slice(0, policy.maxBytes);
      const headers = response ? await response.allHeaders() : {};
      return {
        url: page.url(),
        status: response?.status() ?? 200,
        headers,
        contentType: 'text/html; charset=utf-8',
        body: html,
        bytes: Buffer.byteLength(html),
        truncated: false,
      };
    } finally {
      await context.close().catch(() => {});
      this.release();
    }
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    if (browser) await (await browser.catch(() => undefined))?.close().catch(() => {});
  }
}
