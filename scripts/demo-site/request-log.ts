/**
 * What the demo site saw of its crawlers: each page request's start and end and the client's
 * address, so a check from outside (the compose smoke, `GET /_control/requests`) can tell whether
 * the crawler kept to the site's limits across every replica: how many requests were in flight at
 * once, how close together they started, and which clients made them. robots.txt and the control
 * routes are not pages and are not logged (the crawler fetches robots.txt outside its host slots).
 */

export type RequestRecord = { start: number; end: number | null; client: string };

export type RequestSummary = {
  /** Requests that started at or after `since`. */
  requests: number;
  /** Requests per client address (one per crawler container behind a compose network). */
  clients: Record<string, number>;
  first_at: string | null;
  last_at: string | null;
  /** From the first request's start to the last one's, in ms. */
  span_ms: number;
  /** The most requests the site was answering at one moment. */
  max_concurrent: number;
  /** The shortest time between two consecutive request starts, in ms (null under two requests). */
  min_gap_ms: number | null;
};

/** Keeps the newest `capacity` requests (a long demo run does not grow without bound). */
export class RequestLog {
  private records: RequestRecord[] = [];

  constructor(
    private readonly capacity = 200_000,
    private readonly clock: () => number = () => performance.timeOrigin + performance.now(),
  ) {}

  /** Records a request's start; call the returned function when its answer has been sent. */
  begin(client: string): () => void {
    const record: RequestRecord = { start: this.clock(), end: null, client };
    this.records.push(record);
    if (this.records.length > this.capacity) this.records.splice(0, this.records.length - this.capacity);
    return () => {
      record.end ??= this.clock();
    };
  }

  summary(sinceMs = 0): RequestSummary {
    return summarizeRequests(this.records.filter((r) => r.start >= sinceMs));
  }
}

/** The summary of a set of requests (a request not yet answered counts as in flight until now). */
export function summarizeRequests(records: RequestRecord[], now = performance.timeOrigin + performance.now()): RequestSummary {
  const starts = records.map((r) => r.start).sort((a, b) => a - b);
  const clients: Record<string, number> = {};
  for (const r of records) clients[r.client] = (clients[r.client] ?? 0) + 1;
  // Sweep: at equal times an end comes before a start (a request that ended as another began
  // was not answered at the same time as it).
  const events = records.flatMap((r) => [
    { at: r.start, delta: 1 },
    { at: r.end ?? now, delta: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let inFlight = 0;
  let maxConcurrent = 0;
  for (const e of events) {
    inFlight += e.delta;
    maxConcurrent = Math.max(maxConcurrent, inFlight);
  }
  let minGap: number | null = null;
  for (let i = 1; i < starts.length; i++) minGap = Math.min(minGap ?? Infinity, starts[i]! - starts[i - 1]!);
  const first = starts[0];
  const last = starts[starts.length - 1];
  return {
    requests: records.length,
    clients,
    first_at: first === undefined ? null : new Date(first).toISOString(),
    last_at: last === undefined ? null : new Date(last).toISOString(),
    span_ms: first === undefined ? 0 : Math.round(last! - first),
    max_concurrent: maxConcurrent,
    min_gap_ms: minGap === null ? null : Math.round(minGap * 10) / 10,
  };
}
