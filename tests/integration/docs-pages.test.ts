/** The buyer pages of docs/ served read-only by the API (the deal page's "Why this score" links there). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { DOCS_DIR } from '../../services/api/routes/docs-pages.js';
import { createTestApp } from '../support/app.js';

describe('GET /docs/{page}.md', () => {
  let app: ApiApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await createTestApp());
  });
  afterAll(async () => close());

  it('serves docs/deal-score.md as plain text, exactly as written', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/deal-score.md' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toBe(readFileSync(path.join(DOCS_DIR, 'deal-score.md'), 'utf8'));
    expect(res.body).toMatch(/^# How the deal score works/);
  });

  it('serves nothing outside docs/, nothing but Markdown pages, and answers 404 in the API shape', async () => {
    for (const url of ['/docs/nope.md', '/docs/..%2Fpackage.json', '/docs/%2e%2e%2fREADME.md', '/docs/images', '/docs/deal-score.MD', '/docs/.hidden.md']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ detail: 'Not found.' });
    }
  });

  it('is read-only: another method answers 405 with Allow', async () => {
    const res = await app.inject({ method: 'POST', url: '/docs/deal-score.md', payload: {} });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toMatch(/GET/);
    expect(res.headers.allow).not.toMatch(/POST/);
  });
});
