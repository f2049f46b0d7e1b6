/**
 * `/metrics` on the API: queue depth and failures, sources by status (any status, read from the
 * database), crawl outcomes per source, messages sent and failed, the listing-index load hook.
 * Not public: loopback without a token; with METRICS_TOKEN, the token only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordListingIndexLoad, registerContextMetrics } from '../../services/shared/metrics.js';
import { createTestApp } from '../support/app.js';

let open: Awaited<ReturnType<typeof createTestApp>>;
let guarded: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  guarded = await createTestApp({ env: { METRICS_TOKEN: 'scrape-token-0123456789' } });
  open = await createTestApp();
  registerContextMetrics(open.ctx);
  const sql = open.ctx.database.sql;
  const [demo] = await sql<{ id: number }[]>`
    INSERT INTO sources (name, display_name, base_url, enabled, status) VALUES ('probe-a', 'Probe A', 'http://127.0.0.1', true, 'layout-changed') RETURNING id`;
  await sql`INSERT INTO sources (name, display_name, base_url, enabled, status) VALUES ('probe-b', 'Probe B', 'http://127.0.0.1', false, 'ok')`;
  await sql`INSERT INTO crawl_runs (source_id, reason, trigger_key, state, outcome) VALUES
    (${demo!.id}, 'scheduled', 't1', 'finished', 'ok'), (${demo!.id}, 'scheduled', 't2', 'finished', 'ok'), (${demo!.id}, 'scheduled', 't3', 'finished', 'error')`;
  await sql`INSERT INTO outbox_messages (message_key, channel, recipient, text_body, status) VALUES
    ('m1', 'email', 'a@example.com', 'x', 'sent'), ('m2', 'email', 'b@example.com', 'x', 'failed'), ('m3', 'sms', '+15550100', 'x', 'sent')`;
  await open.ctx.queues.enqueue('score', { listingId: 1, reason: 'new', version: 'v1' });
  await open.ctx.queues.enqueue('score', { listingId: 2, reason: 'new', version: 'v1' });
  recordListingIndexLoad(1.25, 4321);
}, 60_000);

afterAll(async () => {
  await open?.close();
  await guarded?.close();
});

describe('GET /metrics', () => {
  it('serves the figures to a loopback client', async () => {
    const response = await open.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    const text = response.body;
    expect(text).toContain('dealradar_queue_jobs{queue="score",state="waiting"} 2');
    expect(text).toContain('dealradar_queue_jobs{queue="crawl",state="failed"} 0');
    expect(text).toContain('dealradar_sources{status="layout-changed",enabled="true"} 1');
    expect(text).toContain('dealradar_sources{status="ok",enabled="false"} 1');
    expect(text).toContain('dealradar_source_status{source="probe-a",status="layout-changed"} 1');
    expect(text).not.toContain('dealradar_source_status{source="probe-b"');
    expect(text).toContain('dealradar_crawl_runs_24h{source="probe-a",outcome="ok"} 2');
    expect(text).toContain('dealradar_crawl_runs_24h{source="probe-a",outcome="error"} 1');
    expect(text).toContain('dealradar_messages_24h{channel="email",status="sent"} 1');
    expect(text).toContain('dealradar_messages_24h{channel="email",status="failed"} 1');
    expect(text).toContain('dealradar_messages_24h{channel="sms",status="sent"} 1');
    expect(text).toContain('dealradar_listing_index_load_seconds 1.25');
    expect(text).toContain('dealradar_listing_index_listings 4321');
    expect(text).toContain('dealradar_process_cpu_seconds_total');
  });

  it('refuses other hosts without a token', async () => {
    const response = await open.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ detail: expect.stringContaining('METRICS_TOKEN') });
  });

  it('with METRICS_TOKEN, answers the token only', async () => {
    const none = await guarded.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(none.statusCode).toBe(401);
    const wrong = await guarded.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3', headers: { authorization: 'Bearer scrape-token-0123456780' } });
    expect(wrong.statusCode).toBe(401);
    const right = await guarded.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3', headers: { authorization: 'Bearer scrape-token-0123456789' } });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('dealradar_queue_jobs');
  });
});
