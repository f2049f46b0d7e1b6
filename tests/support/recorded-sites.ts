/**
 * The real recorded pages and API responses under `<SHARED_DIR>/fixtures/sites/<site>/`, read at
 * run time (never copied into the repository), plus what adapter tests need around them: a
 * FetchedPage built from a file, and the check that a listing an adapter returns is whole.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { CrawlLabel, FetchedPage } from '../../services/crawler/adapter.js';
import type { ScrapedListing } from '../../services/shared/lots/normalize-listing.js';
import { parseConfig, type Config } from '../../services/shared/config.js';

export function testConfig(env: Record<string, string> = {}): Config {
  return parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', SHARED_DIR: process.env.SHARED_DIR ?? '../shared', ...env });
}

export function sitesDir(config: Config = testConfig()): string {
  return path.join(config.SHARED_DIR, 'fixtures', 'sites');
}

export function recordedPath(site: string, file: string, config?: Config): string {
  return path.join(sitesDir(config), site, file);
}

export function readRecorded(site: string, file: string, config?: Config): string {
  return readFileSync(recordedPath(site, file, config), 'utf8');
}

/**
 * Recorded pages kept in the repository (`tests/fixtures/sites/<site>/`, each with its origin in
 * that folder's SOURCE.md): captures found after ../shared's set was made, e.g. Municibid's new site.
 */
export function repoSitesDir(): string {
  return fileURLToPath(new URL('../fixtures/sites/', import.meta.url));
}

export function readRepoRecorded(site: string, file: string): string {
  return readFileSync(path.join(repoSitesDir(), site, file), 'utf8');
}

export function recordedJson<T = unknown>(site: string, file: string): T {
  return JSON.parse(readRecorded(site, file)) as T;
}

/** Every recorded file of every site (bigiron's CSV included), as `{ site, file }`. */
export function allRecordedFiles(config?: Config): { site: string; file: string }[] {
  const dir = sitesDir(config);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(path.join(dir, d.name)).map((file) => ({ site: d.name, file })))
    .sort((a, b) => `${a.site}/${a.file}`.localeCompare(`${b.site}/${b.file}`));
}

export function fetchedPage(body: string, url: string, label: CrawlLabel = 'list', extra: Partial<FetchedPage['step']> = {}, fetchedAt = '2026-11-21T06:00:00Z'): FetchedPage {
  return {
    step: { label, url, ...extra },
    url,
    status: 200,
    contentType: body.trimStart().startsWith('<') ? 'text/html; charset=utf-8' : 'application/json',
    body,
    fetchedAt: new Date(fetchedAt),
  };
}

const NUMERIC_FIELDS = ['year', 'hours', 'askingPrice', 'currentBid', 'bidCount', 'buyersPremiumPct', 'soldPrice'] as const;

/** A listing an adapter returns is whole: id, title, absolute lot URL, typed values — never NaN or a stray object. */
export function expectWholeListing(listing: ScrapedListing): void {
  expect(typeof listing.externalId).toBe('string');
  expect(listing.externalId.trim()).not.toBe('');
  expect(typeof listing.title).toBe('string');
  expect(listing.title.trim()).not.toBe('');
  expect(listing.url).toMatch(/^https?:\/\/[^\s]+$/);
  for (const field of NUMERIC_FIELDS) {
    const value = listing[field];
    if (value === null || value === undefined) continue;
    if (typeof value === 'number') expect(Number.isFinite(value)).toBe(true);
    else expect(typeof value).toBe('string');
  }
  if (listing.endsAt instanceof Date) expect(Number.isFinite(listing.endsAt.getTime())).toBe(true);
  for (const image of listing.images ?? []) if (image) expect(image).toMatch(/^https?:\/\//);
}

/** Cuts and scrambles of a recorded body: the inputs an adapter must survive. */
export function damagedVersions(body: string): { name: string; body: string }[] {
  const cuts = [0.1, 0.33, 0.5, 0.9].map((f) => ({ name: `cut at ${Math.round(f * 100)}%`, body: body.slice(0, Math.floor(body.length * f)) }));
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const chars = body.split('');
  for (let i = 0; i < Math.max(20, chars.length / 50); i++) chars[Math.floor(random() * chars.length)] = '\u0000{<"'[Math.floor(random() * 4)]!;
  return [
    ...cuts,
    { name: 'empty', body: '' },
    { name: 'garbled bytes', body: chars.join('') },
    { name: 'reversed', body: body.split('').reverse().join('') },
    { name: 'HTML error page', body: '<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>' },
    { name: 'JSON null', body: 'null' },
    { name: 'JSON of the wrong shape', body: '{"error":{"code":"OVER_RATE_LIMIT","message":"API rate limit exceeded"}}' },
  ];
}
