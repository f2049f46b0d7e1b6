import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { ValidationError } from '../../services/shared/errors.js';
import { createTestApp } from '../support/app.js';
import { waitFor } from '../support/wait.js';

describe('API basics', () => {
  let app: ApiApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await createTestApp({ env: { BODY_LIMIT_BYTES: '2048' }, beforeReady: addProbeRoutes }));
  });
  afterAll(async () => close());

  // Probe routes to exercise body parsing, validation and the error handler.
  function addProbeRoutes(app: ApiApp): void {
    app.post('/api/test-echo/', { schema: { body: z.object({ email: z.string().email(), age: z.number().int() }) } }, async (req) => req.body);
    app.get('/api/test-boom/', async () => {
      throw new Error('secret internal detail');
    });
    app.get('/api/test-fields/', async () => {
      throw new ValidationError({ email: ['Enter a valid email address.'], password1: ['Too short.'] });
    });
  }

  it('reports health with database, queue, listing index and version', async () => {
    // 503 `starting` until the listing index has loaded (an empty database: moments).
    const res = await waitFor(async () => {
      const r = await app.inject({ method: 'GET', url: '/api/health/' });
      if (r.statusCode === 503) expect(r.json()).toMatchObject({ status: 'starting', listing_index: 'loading' });
      return r.statusCode === 503 ? undefined : r;
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'ok', queue: 'ok', queue_backend: 'postgres', listing_index: 'ready', version: '1.0.0' });
  });

  it('answers unknown API paths with the contract 404', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/does-not-exist/' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not found.' });
  });

  it('sends security headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/health/' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('allows CORS only from the app origin', async () => {
    const own = await app.inject({ method: 'GET', url: '/api/health/', headers: { origin: 'http://localhost:8080' } });
    expect(own.headers['access-control-allow-origin']).toBe('http://localhost:8080');
    const foreign = await app.inject({ method: 'GET', url: '/api/health/', headers: { origin: 'https://evil.example' } });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('turns schema validation errors into field errors with a detail', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/test-echo/', payload: { email: 'nope', age: 1.5 } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.email[0]).toMatch(/email/i);
    expect(body.age).toHaveLength(1);
    expect(typeof body.detail).toBe('string');
  });

  it('passes ValidationError through in the dj-rest-auth shape', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/test-fields/' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ email: ['Enter a valid email address.'], password1: ['Too short.'], detail: 'Enter a valid email address.' });
  });

  it('answers malformed JSON with 400, not 500', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/test-echo/', payload: '{"email": ', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe('Malformed JSON body.');
  });

  it('refuses bodies over the limit with 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/test-echo/',
      payload: JSON.stringify({ email: 'a@b.co', age: 1, pad: 'x'.repeat(4096) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ detail: 'Request body is too large.' });
  });

  it('hides internal error details', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/test-boom/' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: 'Internal server error.' });
  });

  it('publishes an OpenAPI description generated from the route schemas', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/api/health/'].get.responses['200'].content['application/json'].schema.properties.status).toBeDefined();
    const ui = await app.inject({ method: 'GET', url: '/api/docs/' });
    expect(ui.statusCode).toBe(200);
  });
});
