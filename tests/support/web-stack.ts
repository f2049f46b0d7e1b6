/**
 * The real product for browser tests: the web app built by Vite, served with the API by
 * buildApp over a test database, listening on a free loopback port, and the system Chromium
 * driven by playwright-core. Also a loopback image host so listing photos really load.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { buildApp, type ApiApp } from '../../services/api/app.js';
import { reservePort } from './ports.js';
import { createTestContext, type TestContext } from './context.js';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOT_DIR = path.resolve('test-results/screenshots');

/** Builds web/ into a temporary folder (the checked-out web/dist is left alone). */
export async function buildWebApp(): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-web-'));
  // vitest runs with NODE_ENV=test, which would make Vite bundle React's development build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: path.resolve('web/vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir: dir, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export type WebStack = { url: string; app: ApiApp; ctx: TestContext; close(): Promise<void> };

/**
 * `appUrlIsOwn`: APP_URL names the stack's own origin (a free port chosen first), for journeys
 * that follow links the product builds from it (checkout return URLs, e-mail links).
 */
export async function startWebStack(opts: { env?: Record<string, string>; appUrlIsOwn?: boolean } = {}): Promise<WebStack> {
  const ownPort = opts.appUrlIsOwn ? await reservePort() : 0;
  const web = await buildWebApp();
  const ctx = await createTestContext({ env: { ...opts.env, ...(opts.appUrlIsOwn ? { APP_URL: `http://127.0.0.1:${ownPort}` } : {}) } });
  const app = await buildApp(ctx, { webDist: web.dir });
  await app.listen({ host: '127.0.0.1', port: ownPort });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('API did not bind a TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    app,
    ctx,
    async close() {
      await app.close();
      await ctx.close();
      web.remove();
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}

/** Serves an SVG "photo" for any path, so cards and the carousel show real images. */
export async function startImageHost(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const label = decodeURIComponent((req.url ?? '/').split('/').pop() ?? '').replace(/[^\w .-]/g, '').slice(0, 40);
    const hue = [...label].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 40);
    res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'max-age=3600' });
    res.end(
      `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600">` +
        `<rect width="800" height="600" fill="hsl(${hue},45%,78%)"/>` +
        `<rect x="180" y="300" width="380" height="120" rx="14" fill="hsl(${hue},55%,35%)"/>` +
        `<circle cx="250" cy="440" r="48" fill="#1f2937"/><circle cx="490" cy="440" r="48" fill="#1f2937"/>` +
        `<path d="M560 330 L690 220 L720 250 L600 350 Z" fill="hsl(${hue},55%,30%)"/>` +
        `<text x="400" y="140" font-family="sans-serif" font-size="40" text-anchor="middle" fill="#111827">${label}</text></svg>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('image host did not bind');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
