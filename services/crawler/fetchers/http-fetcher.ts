/**
 * The HTTP fetcher: an honest User-Agent, a timeout, compression, redirects followed only to
 * the source's own hosts, and a body size cap (a bigger response is cut and reported, never
 * parsed). Under tests and CI (`CRAWL_ALLOW_ONLY_LOOPBACK`) it refuses every non-loopback host
 * before any connection is made.
 */
import { fetch, type Response } from 'undici';
import { NonRetryableError, RetryableError, errorMessage } from '../../shared/errors.js';
import type { HttpRequest } from '../adapter.js';

export type FetchPolicy = {
  /** `host[:port]` values this source may be fetched from. */
  allowedHosts: string[];
  allowOnlyLoopback: boolean;
  userAgent: string;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
};

export type HttpResponse = {
  url: string;
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: string;
  bytes: number;
  /** True when the body went over `maxBytes` and was cut there. */
  truncated: boolean;
};

/** A request the crawler will not make (foreign redirect, non-loopback host under tests): not retried. */
export class FetchRefusedError extends NonRetryableError {
  constructor(message: string) {
    super(message);
    this.name = 'FetchRefusedError';
  }
}

export function userAgent(contact: string): string {
  return `DealRadarBot/1.0 (+${contact}; equipment auction price research)`;
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Throws FetchRefusedError unless the URL is http(s), on an allowed host, and loopback when required. */
export function assertFetchable(rawUrl: string, policy: Pick<FetchPolicy, 'allowedHosts' | 'allowOnlyLoopback'>): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchRefusedError(`refused: not a URL (${rawUrl.slice(0, 200)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`refused: ${url.protocol} URLs are not crawled`);
  if (policy.allowOnlyLoopback && !isLoopbackHost(url.hostname)) {
    throw new FetchRefusedError(`refused: ${url.host} is not loopback (CRAWL_ALLOW_ONLY_LOOPBACK is on under tests and CI)`);
  }
  if (!policy.allowedHosts.includes(url.host)) throw new FetchRefusedError(`refused: ${url.host} is not one of this source's hosts (${policy.allowedHosts.join(', ')})`);
  return url;
}

function charsetOf(contentType: string): string {
  const m = /charset=["']?([\w-]+)/i.exec(contentType);
  return m ? m[1]!.toLowerCase() : 'utf-8';
}

async function readCapped(response: Response, maxBytes: number): Promise<{ buffer: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (!response.body) return { buffer: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { buffer: Buffer.concat(chunks), truncated: false };
    if (size + value.byteLength > maxBytes) {
      chunks.push(Buffer.from(value.buffer, value.byteOffset, maxBytes - size));
      // Stop downloading: the rest of the body is never read.
      await reader.cancel().catch(() => {});
      return { buffer: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
  }
}

/** Fetches one request under the policy. Network failures and timeouts are retryable. */
export async function httpFetch(request: HttpRequest, policy: FetchPolicy): Promise<HttpResponse> {
  const maxRedirects = policy.maxRedirects ?? 5;
  let url = assertFetchable(request.url, policy);
  let method = request.method ?? 'GET';
  let body = request.body;
  const signal = AbortSignal.timeout(policy.timeoutMs);
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        body: method === 'POST' ? body : undefined,
        redirect: 'manual',
        signal,
        headers: {
          'user-agent': policy.userAgent,
          accept: 'text/html,application/json;q=0.9,*/*;q=0.8',
          'accept-language': 'en-US,en;q=0.8',
          ...request.headers,
        },
      });
    } catch (err) {
      const reason = signal.aborted ? `timed out after ${policy.timeoutMs} ms` : errorMessage((err as { cause?: unknown }).cause ?? err);
      throw new RetryableError(`${method} ${url.href}: ${reason}`);
    }
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      await response.body?.cancel().catch(() => {});
      if (hop >= maxRedirects) throw new FetchRefusedError(`refused: more than ${maxRedirects} redirects from ${request.url}`);
      const target = new URL(response.headers.get('location')!, url);
      url = assertFetchable(target.href, policy);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    let read: { buffer: Buffer; truncated: boolean };
    try {
      read = await readCapped(response, policy.maxBytes);
    } catch (err) {
      throw new RetryableError(`${method} ${url.href}: body read failed: ${signal.aborted ? 'timed out' : errorMessage(err)}`);
    }
    const contentType = response.headers.get('content-type') ?? '';
    let text: string;
    try {
      text = new TextDecoder(charsetOf(contentType)).decode(read.buffer);
    } catch {
      text = new TextDecoder('utf-8').decode(read.buffer);
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headers[key] = value;
    });
    return { url: url.href, status: response.status, headers, contentType, body: text, bytes: read.buffer.byteLength, truncated: read.truncated };
  }
}

/** Retry-After (seconds or an HTTP date) in ms, bounded to an hour; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value.trim());
  const ms = Number.isFinite(seconds) ? seconds * 1000 : new Date(value).getTime() - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), 3600_000);
}
