/**
 * robots.txt, obeyed: fetched once per origin and cached in the database for every replica
 * (a day when fetched, ten minutes after a server error), plus a minute in process memory.
 * 4xx = no rules (allow all); 5xx or unreachable = disallow all until the next try, as
 * Google's crawler does. A `Crawl-delay` raises the host's minimum delay.
 */
import robotsParser from 'robots-parser';
import type { Db } from '../../shared/database/db.js';
import { findFreshRobots, saveRobots, type RobotsEntry } from '../../shared/repositories/robots-cache-repository.js';

export const ROBOTS_AGENT = 'DealRadarBot';
const DAY_MS = 24 * 3600_000;
const ERROR_TTL_MS = 10 * 60_000;
const MEMORY_TTL_MS = 60_000;

export type RobotsVerdict = { allowed: boolean; crawlDelayMs?: number };
type RobotsFetch = (url: string) => Promise<{ status: number; body: string }>;
type Policy = { policy: string; robot?: ReturnType<typeof robotsParser> };

export class RobotsGate {
  private readonly memory = new Map<string, { at: number; policy: Policy }>();

  constructor(
    private readonly db: Db,
    private readonly fetchRobots: RobotsFetch,
  ) {}

  private toPolicy(origin: string, entry: Pick<RobotsEntry, 'policy' | 'body'>): Policy {
    return entry.policy === 'parsed' ? { policy: 'parsed', robot: robotsParser(`${origin}/robots.txt`, entry.body) } : { policy: entry.policy };
  }

  private async load(origin: string): Promise<Policy> {
    const cached = this.memory.get(origin);
    if (cached && Date.now() - cached.at < MEMORY_TTL_MS) return cached.policy;
    let entry = await findFreshRobots(this.db, origin);
    if (!entry) {
      let fetched: { statusCode: number | null; body: string; policy: 'allow-all' | 'disallow-all' | 'parsed'; ttlMs: number };
      try {
        const response = await this.fetchRobots(`${origin}/robots.txt`);
        if (response.status >= 200 && response.status < 300) fetched = { statusCode: response.status, body: response.body.slice(0, 512_000), policy: 'parsed', ttlMs: DAY_MS };
        else if (response.status >= 400 && response.status < 500 && response.status !== 429) fetched = { statusCode: response.status, body: '', policy: 'allow-all', ttlMs: DAY_MS };
        else fetched = { statusCode: response.status, body: '', policy: 'disallow-all', ttlMs: ERROR_TTL_MS };
      } catch {
        fetched = { statusCode: null, body: '', policy: 'disallow-all', ttlMs: ERROR_TTL_MS };
      }
      await saveRobots(this.db, { origin, ...fetched });
      entry = { origin, statusCode: fetched.statusCode, body: fetched.body, policy: fetched.policy, fetchedAt: new Date(), expiresAt: new Date(Date.now() + fetched.ttlMs) };
    }
    const policy = this.toPolicy(origin, entry);
    this.memory.set(origin, { at: Date.now(), policy });
    return policy;
  }

  async check(url: string): Promise<RobotsVerdict> {
    const origin = new URL(url).origin;
    const policy = await this.load(origin);
    if (policy.policy === 'allow-all') return { allowed: true };
    if (policy.policy === 'disallow-all') return { allowed: false };
    const robot = policy.robot!;
    const delay = robot.getCrawlDelay(ROBOTS_AGENT);
    return { allowed: robot.isAllowed(url, ROBOTS_AGENT) !== false, crawlDelayMs: delay ? Math.min(delay, 120) * 1000 : undefined };
  }
}
