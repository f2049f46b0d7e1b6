/**
 * Per-host politeness claimed in SQL, so every crawler replica shares it: a request may start
 * when the host has a free concurrency slot, its minimum delay since the last start has passed
 * and no Retry-After backoff is in force. The host row's lock serialises claimers.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../shared/database/db.js';

export type HostLimits = { minDelayMs: number; maxConcurrency: number };
export type SlotClaim = { granted: true; leaseId: string } | { granted: false; waitMs: number };

/** Claims a request slot on `host`, or says how long to wait. A lease expires by itself after `leaseMs`. */
export async function claimHostSlot(db: Db, host: string, limits: HostLimits, leaseMs: number): Promise<SlotClaim> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`
      INSERT INTO host_politeness (host, min_delay_ms, max_concurrency) VALUES (${host}, ${limits.minDelayMs}, ${limits.maxConcurrency})
      ON CONFLICT (host) DO UPDATE SET min_delay_ms = excluded.min_delay_ms, max_concurrency = excluded.max_concurrency
      WHERE host_politeness.min_delay_ms <> excluded.min_delay_ms OR host_politeness.max_concurrency <> excluded.max_concurrency`);
    const [state] = await tx.execute<{ wait_ms: number; in_flight: number; max_concurrency: number; min_delay_ms: number }>(sql`
      SELECT greatest(0, ceil(extract(epoch FROM (greatest(h.next_allowed_at, coalesce(h.backoff_until, h.next_allowed_at)) - clock_timestamp())) * 1000))::int AS wait_ms,
             (SELECT count(*)::int FROM host_leases l WHERE l.host = h.host AND l.expires_at > clock_timestamp()) AS in_flight,
             h.max_concurrency, h.min_delay_ms
        FROM host_politeness h WHERE h.host = ${host} FOR UPDATE`);
    if (!state) throw new Error(`host_politeness row for ${host} vanished`);
    if (state.wait_ms > 0) return { granted: false, waitMs: state.wait_ms };
    if (state.in_flight >= state.max_concurrency) return { granted: false, waitMs: Math.max(100, state.min_delay_ms) };
    const leaseId = randomUUID();
    await tx.execute(sql`DELETE FROM host_leases WHERE host = ${host} AND expires_at <= clock_timestamp()`);
    await tx.execute(sql`INSERT INTO host_leases (host, lease_id, expires_at) VALUES (${host}, ${leaseId}, clock_timestamp() + make_interval(secs => ${leaseMs / 1000}))`);
    await tx.execute(sql`UPDATE host_politeness SET next_allowed_at = clock_timestamp() + make_interval(secs => ${state.min_delay_ms / 1000}), updated_at = now() WHERE host = ${host}`);
    return { granted: true, leaseId };
  });
}

export async function releaseHostSlot(db: Db, host: string, leaseId: string): Promise<void> {
  await db.execute(sql`DELETE FROM host_leases WHERE host = ${host} AND lease_id = ${leaseId}`);
}

/** 429/503 with Retry-After: nobody calls the host before `untilMs` from now. */
export async function backOffHost(db: Db, host: string, untilMs: number): Promise<void> {
  await db.execute(sql`
    UPDATE host_politeness SET backoff_until = greatest(coalesce(backoff_until, clock_timestamp()), clock_timestamp() + make_interval(secs => ${untilMs / 1000})), updated_at = now()
     WHERE host = ${host}`);
}
