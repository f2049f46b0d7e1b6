/**
 * POST /api/events/ over the real app and database: anonymous and signed-in batches stored in
 * analytics_events, §5 bounds applied to what a client sends, validation in the contract's shape,
 * and the per-IP rate limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { listDeviceEvents } from '../../services/shared/repositories/events-repository.js';
import { bearer, registerUser } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';

describe('POST /api/events/', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, ctx, close } = await createTestApp({ env: { EVENTS_RATE_LIMIT: '40' } }));
  });
  afterAll(async () => close());

  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/api/events/', headers, payload: payload as Record<string, unknown> });

  it('stores an anonymous batch with 202 and no user', async () => {
    const res = await post({
      device_id: 'dr_anon-device-1',
      user_properties: { email: 'forged@example.com' },
      events: [
        { name: 'Home', type: 'page', properties: { path: '/', search: '', hash: '' } },
        { name: 'Auction Searched', properties: { query: 'cat 320' }, timestamp: new Date(Date.now() - 5000).toISOString() },
      ],
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: 2 });
    const rows = await listDeviceEvents(ctx.database.db, 'dr_anon-device-1');
    expect(rows.map((r) => [r.name, r.kind, r.userId])).toEqual([
      ['Home', 'page', null],
      ['Auction Searched', 'track', null],
    ]);
    expect(rows[0]!.properties).toEqual({ path: '/', search: '', hash: '' });
    // An anonymous request cannot say who it is.
    expect(rows[0]!.userProperties).toBeNull();
    expect(Date.now() - rows[1]!.occurredAt.getTime()).toBeGreaterThan(4000);
  });

  it('names the signed-in user and keeps only the §3 user properties', async () => {
    const user = await registerUser(app);
    const res = await post(
      {
        device_id: 'dr_signed-in-device',
        user_properties: { email: user.user.email, first_name: 'Dana', last_name: 'Miller', user_type: 'free', date_joined: '2026-11-21', original_user_id: user.user.id, password: 'nope' },
        events: [{ name: 'dashboard', type: 'page', properties: { path: '/dashboard' } }],
      },
      bearer(user.access_token),
    );
    expect(res.statusCode).toBe(202);
    const [row] = await listDeviceEvents(ctx.database.db, 'dr_signed-in-device');
    expect(row!.userId).toBe(user.user.id);
    expect(row!.userProperties).toEqual({ email: user.user.email, first_name: 'Dana', last_name: 'Miller', user_type: 'free', date_joined: '2026-11-21', original_user_id: user.user.id });
  });

  it('a bad token is treated as anonymous, not refused', async () => {
    const res = await post({ device_id: 'dr_bad-token-dev', events: [{ name: 'x' }] }, bearer('not-a-token'));
    expect(res.statusCode).toBe(202);
    const [row] = await listDeviceEvents(ctx.database.db, 'dr_bad-token-dev');
    expect(row!.userId).toBeNull();
  });

  it('bounds what it stores by the §5 rules', async () => {
    const deep = { a: { b: { c: { d: 'too deep' } } } };
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i]));
    const res = await post({
      device_id: 'dr_bounds-device',
      events: [
        { name: 'Auction Filtered', properties: { long: 'x'.repeat(5000), list: Array.from({ length: 300 }, (_, i) => i), empty: null, deep } },
        { name: 'Many', properties: many },
      ],
    });
    expect(res.statusCode).toBe(202);
    const [bounded, manyRow] = await listDeviceEvents(ctx.database.db, 'dr_bounds-device');
    const props = bounded!.properties as Record<string, unknown>;
    expect((props.long as string).length).toBe(1000);
    expect((props.list as number[]).length).toBe(100);
    expect(props.empty).toBe('');
    expect(props.deep).toEqual({ a: { b: {} } });
    expect(Object.keys(manyRow!.properties)).toHaveLength(50);
  });

  it('refuses bad input with field errors, never a 500', async () => {
    const cases: Array<[unknown, string]> = [
      [{ events: [{ name: 'x' }] }, 'device_id'],
      [{ device_id: 'abc', events: [{ name: 'x' }] }, 'device_id'],
      [{ device_id: 'dr_ok-device', events: [] }, 'events'],
      [{ device_id: 'dr_ok-device', events: [{ name: 'n'.repeat(101) }] }, 'events'],
      [{ device_id: 'dr_ok-device', events: [{ name: '' }] }, 'events'],
      [{ device_id: 'dr_ok-device', events: Array.from({ length: 21 }, () => ({ name: 'x' })) }, 'events'],
      [{ device_id: 'dr_ok-device', events: [{ name: 'x', type: 'other' }] }, 'events'],
      [{ device_id: 'dr_ok-device', events: [{ name: 'x', properties: [1, 2] }] }, 'events'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(JSON.stringify(res.json())).toContain(field);
      expect(typeof res.json().detail).toBe('string');
    }
    expect(await listDeviceEvents(ctx.database.db, 'dr_ok-device')).toEqual([]);
    const tooBig = await app.inject({ method: 'POST', url: '/api/events/', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ device_id: 'dr_ok-device', events: [{ name: 'x', properties: { s: 'x'.repeat(300_000) } }] }) });
    expect(tooBig.statusCode).toBe(413);
  });

  it('is rate-limited per client IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await post({ device_id: 'dr_rate-device', events: [{ name: 'x' }] }, { 'x-forwarded-for': '10.0.0.9' })).statusCode);
    expect(statuses).toContain(429);
    const limited = await post({ device_id: 'dr_rate-device', events: [{ name: 'x' }] });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().detail).toMatch(/throttled/);
    expect(limited.headers['retry-after']).toBeDefined();
  });
});
