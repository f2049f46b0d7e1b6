/**
 * Per-host politeness claimed in SQL, so every crawler replica shares it: a request may start
 * when the host has a free concurrency slot, its minimum delay since the last start has passed
 * and no Retry-After backoff is in force. One statement per claim: the host row is locked
 * (FOR UPDATE), and under READ COMMITTED a claimer that waited for the lock re-reads the row as
 * the previous claimer left it, so `in_flight` and `next_allowed_at` are never overshot.
 * Each slot is also a lease with an expiry, so a worker killed mid-request frees it by itself.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../database/db.js';

export type HostLimits = { minDelayMs: number; maxConcurrency: number };
export type SlotClaim = { granted: true; leaseId: string } | { granted: false; waitMs: number };

/** Creates or re-limits the host's row (idempotent). */
export async function registerHost(db: Db, host: string, limits: HostLimits): Promise<void> {
  await db.execute(sql`
    INSERT INTO host_politeness (host, min_delay_ms, max_concurrency) VALUES (${host}, ${limits.minDelayMs}, ${limits.maxConcurrency})
    ON CONFLICT (host) DO UPDATE SET min_delay_ms = excluded.min_delay_ms, max_concurrency = excluded.max_concurrency
    WHERE host_politeness.min_delay_ms <> excluded.min_delay_ms OR host_politeness.max_concurrency <> excluded.max_concurrency`);
}

/** Claims a request slot on a registered host, or says how long to wait. */
export async function claimHostSlot(db: Db, host: string, leaseMs: number): Promise<SlotClaim> {
  const leaseId = randomUUID();
  const [row] = await db.execute<{ wait_ms: number; in_flight: number; max_concurrency: number; min_delay_ms: number; lease_id: string | null }>(sql`
    WITH h AS (
      SELECT host, in_flight, max_concurrency, min_delay_ms,
             greatest(0, ceil(extract(epoch FROM (greatest(next_allowed_at, coalesce(backoff_until, next_allowed_at)) - clock_timestamp())) * 1000))::int AS wait_ms
        FROM host_politeness WHERE host = ${host} FOR UPDATE),
    granted AS (
      UPDATE host_politeness p
         SET in_flight = p.in_flight + 1, next_allowed_at = clock_timestamp() + make_interval(secs => p.min_delay_ms / 1000.0), updated_at = now()
        FROM h
       WHERE p.host = h.host AND h.wait_ms = 0 AND h.in_flight < h.max_concurrency
   RETURNING p.host),
    lease AS (
      INSERT INTO host_leases (host, lease_id, expires_at)
      SELECT host, ${leaseId}, clock_timestamp() + make_interval(secs => ${leaseMs / 1000}) FROM granted
   RETURNING lease_id)
    SELECT h.wait_ms, h.in_flight, h.max_concurrency, h.min_delay_ms, (SELECT lease_id FROM lease) AS lease_id FROM h`);
  if (!row) throw new Error(`host ${host} is not registered for politeness`);
  if (row.lease_id) return { granted: true, leaseId: row.lease_id };
  if (row.wait_ms > 0) return { granted: false, waitMs: row.wait_ms };
  // Every slot is taken: free the slots of leases that expired (their worker died), then wait a little.
  await db.execute(sql`
    WITH expired AS (DELETE FROM host_leases WHERE host = ${host} AND expires_at <= clock_timestamp() RETURNING 1)
    UPDATE host_politeness SET in_flight = greatest(0, in_flight - (SELECT count(*) FROM expired))
     WHERE host = ${host} AND EXISTS (SELECT 1 FROM expired)`);
  return { granted: false, waitMs: Math.max(50, Math.min(row.min_delay_ms, 1000)) };
}

export async function releaseHostSlot(db: Db, host: string, leaseId: string): Promise<void> {
  await db.execute(sql`
    WITH released AS (DELETE FROM host_leases WHERE host = ${host} AND lease_id = ${leaseId} RETURNING 1)
    UPDATE host_politeness SET in_flight = greatest(0, in_flight - 1) WHERE host = ${host} AND EXISTS (SELECT 1 FROM released)`);
}

/** 429/503 with Retry-After: nobody calls the host before `untilMs` from now. */
export async function backOffHost(db: Db, host: string, untilMs: number): Promise<void> {
  await db.execute(sql`
    UPDATE host_politeness SET backoff_until = greatest(coalesce(backoff_until, clock_timestamp()), clock_timestamp() + make_interval(secs => ${untilMs / 1000})), updated_at = now()
     WHERE host = ${host}`);
}
