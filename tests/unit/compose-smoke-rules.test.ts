/**
 * The compose smoke's judgements (scripts/compose/smoke-rules.ts) and the demo site's request log
 * they read (scripts/demo-site/request-log.ts), held to the cases that must fail: crawler replicas
 * that each keep their own limits, a replica that never crawled, a restart that lost rows.
 */
import { describe, expect, it } from 'vitest';
import { BINDING_SHARE, CLAIM_TO_ARRIVAL_MS, politenessVerdict, queuedRunId, rowsKept, SMOKE_CRAWL_DELAY_S, smokeEnvFile } from '../../scripts/compose/smoke-rules.js';
import { demoRobotsTxt } from '../../scripts/demo-site/demo-server.js';
import { RequestLog, summarizeRequests, type RequestRecord } from '../../scripts/demo-site/request-log.js';

const CRAWLERS = ['172.18.0.7', '172.18.0.8', '172.18.0.9'];
const LIMITS = { minDelayMs: 200, maxConcurrency: 8 };

/** `n` requests starting `gapMs` apart, each answered in `durationMs`, dealt round-robin to the clients. */
function requests(n: number, gapMs: number, durationMs = 5, clients = CRAWLERS): RequestRecord[] {
  return Array.from({ length: n }, (_, i) => ({ start: 1_000_000 + i * gapMs, end: 1_000_000 + i * gapMs + durationMs, client: `::ffff:${clients[i % clients.length]}` }));
}

describe('request log', () => {
  it('counts requests at once, the closest starts and each client', () => {
    const summary = summarizeRequests([
      { start: 0, end: 100, client: 'a' },
      { start: 10, end: 50, client: 'b' },
      { start: 40, end: 60, client: 'a' },
      { start: 100, end: 120, client: 'c' }, // starts as the first ends: not at the same time
    ]);
    expect(summary).toMatchObject({ requests: 4, clients: { a: 2, b: 1, c: 1 }, span_ms: 100, max_concurrent: 3, min_gap_ms: 10 });
  });

  it('summarises only what started since the given time, and counts an unanswered request as in flight', () => {
    let now = 0;
    const log = new RequestLog(100, () => now);
    const first = log.begin('a');
    now = 50;
    first();
    now = 100;
    log.begin('b'); // never answered
    now = 110;
    log.begin('c')();
    const summary = log.summary(100);
    expect(summary.requests).toBe(2);
    expect(summary.clients).toEqual({ b: 1, c: 1 });
  });

  it('keeps only the newest records past its capacity', () => {
    let now = 0;
    const log = new RequestLog(3, () => now++);
    for (let i = 0; i < 5; i++) log.begin(`c${i}`)();
    expect(Object.keys(log.summary().clients)).toEqual(['c2', 'c3', 'c4']);
  });

  it("serves a Crawl-delay in robots.txt only when asked", () => {
    expect(demoRobotsTxt()).not.toContain('Crawl-delay');
    expect(demoRobotsTxt(0.2)).toContain('Crawl-delay: 0.2\n');
  });
});

describe('politenessVerdict', () => {
  it('passes three crawlers that shared one host limit', () => {
    const verdict = politenessVerdict(summarizeRequests(requests(90, 201)), LIMITS, CRAWLERS);
    expect(verdict.ok, verdict.detail).toBe(true);
    expect(verdict.detail).toContain('90 requests from 3 crawlers (30/30/30)');
  });

  it('fails three crawlers that each kept the limit on their own (three times the rate)', () => {
    const verdict = politenessVerdict(summarizeRequests(requests(90, 67)), LIMITS, CRAWLERS);
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toContain('one per 200 ms needs');
  });

  it("allows one request's trip from claim to arrival, no more", () => {
    // 50 requests need 49 delays (9800 ms); their arrivals may span that less the allowance.
    expect(politenessVerdict(summarizeRequests(requests(50, (9800 - CLAIM_TO_ARRIVAL_MS) / 49)), LIMITS, CRAWLERS).ok).toBe(true);
    expect(politenessVerdict(summarizeRequests(requests(50, (9800 - CLAIM_TO_ARRIVAL_MS - 20) / 49)), LIMITS, CRAWLERS).ok).toBe(false);
  });

  it('fails a crawl that ran well under the limit: nothing shows the limit held the replicas back', () => {
    const verdict = politenessVerdict(summarizeRequests(requests(60, 400)), LIMITS, CRAWLERS);
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toContain('the limit never held the replicas back');
    expect(politenessVerdict(summarizeRequests(requests(60, Math.floor(LIMITS.minDelayMs / BINDING_SHARE) - 5)), LIMITS, CRAWLERS).ok).toBe(true);
  });

  it('fails more requests at once than the host allows', () => {
    const verdict = politenessVerdict(summarizeRequests(requests(60, 201, 2000)), LIMITS, CRAWLERS);
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toContain('10 requests at once, over the host');
  });

  it('fails when a replica made no request, or a stranger did, or too few requests were seen', () => {
    expect(politenessVerdict(summarizeRequests(requests(60, 201, 5, CRAWLERS.slice(0, 2))), LIMITS, CRAWLERS).detail).toContain('crawler 172.18.0.9 made no request');
    expect(politenessVerdict(summarizeRequests(requests(60, 201, 5, [...CRAWLERS, '172.18.0.2'])), LIMITS, CRAWLERS).detail).toContain('requests from 172.18.0.2, not a crawler');
    expect(politenessVerdict(summarizeRequests(requests(10, 201)), LIMITS, CRAWLERS).detail).toContain('too few to judge');
  });

  it('fails when the host has no minimum delay (the Crawl-delay was not read)', () => {
    expect(politenessVerdict(summarizeRequests(requests(60, 201)), { minDelayMs: 0, maxConcurrency: 8 }, CRAWLERS).ok).toBe(false);
  });
});

describe('rowsKept', () => {
  it('passes when every table has its rows or more', () => {
    const verdict = rowsKept({ listings: 100, users: 1, host_leases: 0 }, { listings: 104, users: 1, host_leases: 0 });
    expect(verdict).toMatchObject({ ok: true, rows: 101, tables: 3 });
  });

  it('fails naming the table that lost rows; a lease ending is no loss', () => {
    const verdict = rowsKept({ listings: 100, users: 2, host_leases: 3 }, { listings: 100, users: 1, host_leases: 0 });
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toBe('rows lost: users 2 → 1');
    expect(rowsKept({ outbox_messages: 1 }, {}).detail).toBe('rows lost: outbox_messages 1 → 0');
  });
});

describe('the smoke settings', () => {
  it('crawl only the demo site, at the delay the verdict judges, and publish the API where asked', () => {
    const env = smokeEnvFile({ jwtSecret: 'secret', apiPublish: '127.0.0.1:18080' });
    expect(env).toContain('CRAWL_SOURCES=demo\n');
    expect(env).toContain(`DEMO_SITE_CRAWL_DELAY=${SMOKE_CRAWL_DELAY_S}\n`);
    expect(env).toContain('API_PUBLISH=127.0.0.1:18080\n');
    expect(env).not.toMatch(/SENDGRID_API_KEY=.|SMTP_URL=.|TWILIO_ACCOUNT_SID=./);
  });

  it("reads the run id from the crawl command's answer", () => {
    expect(queuedRunId('Queued crawl run #12 of demo; a running crawler carries it out.\n')).toBe(12);
    expect(() => queuedRunId('Source "demo" is not registered yet')).toThrow(/no run id/);
  });
});
