/**
 * What clients send that the routes did not plan for, against the real API and database: an
 * empty body under a JSON content type (many HTTP clients send one with DELETE), a known path
 * with the wrong method (405 with Allow, in the contract's {"detail"} shape), and the OpenAPI
 * document naming each route's error answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { createTestApp } from '../support/app.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';

let app: ApiApp;
let close: () => Promise<void>;
let user: SignedIn;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
  user = await registerUser(app);
});
afterAll(async () => close?.());

async function createAlert(): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: { equipment_type: 'Excavators' } });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { data: { id: number } }).data.id;
}

describe('an empty body with a JSON content type', () => {
  it('is no body: DELETE /api/alerts/{id}/ deletes the alert', async () => {
    const id = await createAlert();
    const res = await app.inject({ method: 'DELETE', url: `/api/alerts/${id}/`, headers: { ...bearer(user.access_token), 'content-type': 'application/json' }, payload: '' });
    expect(res.statusCode, res.body).toBe(204);
    const again = await app.inject({ method: 'DELETE', url: `/api/alerts/${id}/`, headers: { ...bearer(user.access_token), 'content-type': 'application/json; charset=utf-8' } });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ detail: 'Not found.' });
  });

  it('answers a route that needs a body exactly as a request without one', async () => {
    const headers = bearer(user.access_token);
    const without = await app.inject({ method: 'POST', url: '/api/auth/logout/', headers });
    for (const payload of ['', '  \n']) {
      const empty = await app.inject({ method: 'POST', url: '/api/auth/logout/', headers: { ...headers, 'content-type': 'application/json' }, payload });
      expect(empty.statusCode).toBe(without.statusCode);
      expect(empty.json()).toEqual(without.json());
      expect(empty.json().detail).not.toBe('Malformed JSON body.');
    }
  });

  it('still refuses malformed JSON and still parses JSON', async () => {
    const bad = await app.inject({ method: 'PATCH', url: '/api/alerts/1/', headers: { ...bearer(user.access_token), 'content-type': 'application/json' }, payload: '{"is_active":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toBe('Malformed JSON body.');
    const id = await createAlert();
    const ok = await app.inject({ method: 'PATCH', url: `/api/alerts/${id}/`, headers: { ...bearer(user.access_token), 'content-type': 'application/json' }, payload: '{"is_active": false}' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.is_active).toBe(false);
    // JSON's own protections stay: a __proto__ key is refused, not merged into objects.
    const poisoned = await app.inject({ method: 'PATCH', url: `/api/alerts/${id}/`, headers: { ...bearer(user.access_token), 'content-type': 'application/json' }, payload: '{"__proto__": {"x": 1}}' });
    expect(poisoned.statusCode).toBe(400);
  });
});

describe('a known path with the wrong method', () => {
  it('answers 405 with Allow and a detail', async () => {
    const res = await app.inject({ method: 'PUT', url: '/api/alerts/' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.json()).toEqual({ detail: 'Method "PUT" not allowed.' });
  });

  it('matches paths with parameters', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/alerts/12/' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('DELETE, PATCH');
    const detail = await app.inject({ method: 'DELETE', url: '/api/auctions/detail/some-slug/' });
    expect(detail.statusCode).toBe(405);
    expect(detail.headers.allow).toBe('GET, HEAD');
    const login = await app.inject({ method: 'GET', url: '/api/auth/login/' });
    expect(login.statusCode).toBe(405);
    expect(login.headers.allow).toBe('POST');
  });

  it('leaves unknown paths 404 and CORS preflights alone', async () => {
    for (const [method, url] of [['GET', '/api/nothing-here/'], ['POST', '/api/alerts/12/extra/'], ['DELETE', '/api/alerts']] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ detail: 'Not found.' });
    }
    const preflight = await app.inject({ method: 'OPTIONS', url: '/api/alerts/', headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'POST' } });
    expect(preflight.statusCode).toBe(204);
  });
});

describe('the OpenAPI document', () => {
  type Operation = { responses: Record<string, { description: string; content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }>; security?: unknown[]; parameters?: Array<{ in: string }>; requestBody?: unknown };
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    const res = await app.inject({ method: 'GET', url: '/api/docs/json' });
    paths = res.json().paths;
  });
  const codes = (path: string, method: string) => Object.keys(paths[path]![method]!.responses).sort();

  it("lists each route's error answers", () => {
    // Signed in, a body, plan limits: 400, 401, 403.
    expect(codes('/api/alerts/', 'post')).toEqual(['201', '400', '401', '403']);
    // An alert by id: 404 too; a malformed id is a 400.
    expect(codes('/api/alerts/{id}/', 'patch')).toEqual(['200', '400', '401', '403', '404']);
    expect(codes('/api/alerts/{id}/', 'delete')).toEqual(['204', '400', '401', '404']);
    // Rate-limited and public.
    expect(codes('/api/auth/login/', 'post')).toEqual(expect.arrayContaining(['200', '400', '429']));
    expect(codes('/api/auth/login/', 'post')).not.toContain('401');
    // Public, no input: none of them (its 503 is its own).
    expect(codes('/api/health/', 'get').filter((c) => ['400', '401', '403', '404', '429'].includes(c))).toEqual([]);
    expect(codes('/api/auctions/detail/{id}/', 'get')).toEqual(['200', '400', '404']);
  });

  it('describes every error answer in the contract shape, on every route', () => {
    let checked = 0;
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (op.security?.length) expect(op.responses['401'], where).toBeDefined();
        if (op.parameters?.some((p) => p.in === 'path')) expect(op.responses['404'], where).toBeDefined();
        if (op.requestBody || op.parameters?.length) expect(op.responses['400'], where).toBeDefined();
        for (const code of ['400', '401', '403', '404', '429']) {
          const answer = op.responses[code];
          if (!answer) continue;
          checked++;
          expect(answer.description, `${where} ${code}`).not.toBe('Default Response');
          expect(answer.content?.['application/json']?.schema.properties?.detail, `${where} ${code}`).toBeDefined();
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
  });
});
