/** The HTTP fetcher against a local server: identity, compression, caps, redirects, loopback-only. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefusedError, httpFetch, isLoopbackHost, retryAfterMs, userAgent, type FetchPolicy } from '../../services/crawler/fetchers/http-fetcher.js';
import { RetryableError } from '../../services/shared/errors.js';

let server: Server;
let host: string;
let seenUserAgent = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    seenUserAgent = req.headers['user-agent'] ?? '';
    if (req.url === '/gzip') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
      return res.end(gzipSync('<p>compressed café</p>'));
    }
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(Buffer.alloc(300_000, 'x'));
    }
    if (req.url === '/hop') {
      res.writeHead(302, { location: '/gzip' });
      return res.end();
    }
    if (req.url === '/away') {
      res.writeHead(302, { location: 'https://elsewhere.example.org/' });
      return res.end();
    }
    if (req.url === '/slow') return setTimeout(() => res.end('late'), 2000);
    res.writeHead(404);
    res.end('nope');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const policy = (over: Partial<FetchPolicy> = {}): FetchPolicy => ({
  allowedHosts: [host],
  allowOnlyLoopback: true,
  userAgent: userAgent('https://example.org/contact'),
  timeoutMs: 1000,
  maxBytes: 100_000,
  ...over,
});

describe('httpFetch', () => {
  it('names itself, decompresses and decodes', async () => {
    const response = await httpFetch({ url: `http://${host}/gzip` }, policy());
    expect(response.body).toBe('<p>compressed café</p>');
    expect(seenUserAgent).toMatch(/^DealRadarBot\/1\.0 \(\+https:\/\/example\.org\/contact/);
  });

  it('cuts a body over the cap', async () => {
    const response = await httpFetch({ url: `http://${host}/big` }, policy());
    expect(response.truncated).toBe(true);
    expect(response.bytes).toBe(100_000);
  });

  it('follows redirects on the source host and refuses others', async () => {
    expect((await httpFetch({ url: `http://${host}/hop` }, policy())).url).toBe(`http://${host}/gzip`);
    await expect(httpFetch({ url: `http://${host}/away` }, policy({ allowOnlyLoopback: false }))).rejects.toThrow(/elsewhere\.example\.org is not one of this source's hosts/);
  });

  it('refuses any non-loopback host when loopback-only, before connecting', async () => {
    await expect(httpFetch({ url: 'https://www.govdeals.com/' }, policy({ allowedHosts: ['www.govdeals.com'] }))).rejects.toBeInstanceOf(FetchRefusedError);
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('127.example.com')).toBe(false);
  });

  it('times out as a retryable error', async () => {
    await expect(httpFetch({ url: `http://${host}/slow` }, policy({ timeoutMs: 200 }))).rejects.toBeInstanceOf(RetryableError);
  });

  it('reads Retry-After in seconds or as a date, bounded', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(retryAfterMs('99999')).toBe(3600_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
