/**
 * Named points where a test can have this process die, to prove that work cut off there is
 * finished or rolled back after a restart (tests/e2e/fault-suite.test.ts). Compiled in and inert:
 * nothing happens unless FAULT_POINT names the point.
 *
 *   FAULT_POINT=<name>[:<n>]   at the n-th time (default 1st) the process reaches <name>…
 *   FAULT_SIGNAL=SIGKILL       …it sends itself this signal (SIGKILL by default; SIGINT or
 *                              SIGTERM ask for the orderly stop instead).
 *
 * Both are read and checked by the config schema (services/shared/config.ts: a point that does
 * not exist, or any point under NODE_ENV=production, stops start-up); `loadConfig` arms the
 * process's point here once. Every layer may call `faultPoint` (importers, workers,
 * repositories) without a config in hand, so the armed point is module state, and a call is a
 * comparison when nothing is armed.
 */

/** The two settings the config schema checks and hands over (this module imports nothing, so config.ts can import it). */
export interface FaultSettings {
  FAULT_POINT?: string | undefined;
  FAULT_SIGNAL: 'SIGKILL' | 'SIGTERM' | 'SIGINT';
}

let spec: { name: string; at: number } | null = null;
let signal: NodeJS.Signals = 'SIGKILL';
const hits = new Map<string, number>();
let fired = false;

/** Arms the point the configuration names (none: disarms). Called once per process by loadConfig. */
export function armFaultPoint(config: FaultSettings): void {
  spec = parse(config.FAULT_POINT);
  signal = config.FAULT_SIGNAL;
  hits.clear();
  fired = false;
}

function parse(value: string | undefined): { name: string; at: number } | null {
  if (!value) return null;
  const [name, at] = value.split(':');
  return { name: name!, at: at ? Number(at) : 1 };
}

/** Every point the code defines, for the suite's table and the soak's random choice. */
export const FAULT_POINTS = [
  /** a batch of sales and its rows-done count committed (the n-th batch of one import) */
  'sales-import-batch',
  /** a new model stored, its rescore not yet queued */
  'model-stored',
  /** a rescore's batches queued, the model job not yet completed */
  'rescore-enqueued',
  /** scores written (a listing or a batch), the match jobs not yet queued */
  'score-written',
  /** one lot stored with its observation, the page's scoring not yet queued */
  'crawl-listing-stored',
  /** a listing's notifications recorded, their messages not yet */
  'match-recorded',
  /** instant messages in the message log, their notifications not marked, no job queued */
  'messages-recorded',
  /** instant messages in the log and their notifications marked queued, their batch jobs not yet queued */
  'notifications-queued',
  /** a message claimed for sending, not yet handed to the provider */
  'notify-claimed',
  /** a message accepted by the provider, not yet marked sent */
  'notify-sent',
  /** a day's digest e-mails in the message log, their jobs not yet queued */
  'digest-recorded',
] as const;
export type FaultPointName = (typeof FAULT_POINTS)[number];

/**
 * Marks a point. `count` is the caller's own ordinal (e.g. the batch number) when it has one;
 * otherwise the hits of this process are counted.
 */
export function faultPoint(name: FaultPointName, count?: number): void {
  if (!spec || fired || spec.name !== name) return;
  const n = count ?? (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (n !== spec.at) return;
  fired = true;
  process.stderr.write(`fault point ${name}:${n}: sending ${signal} to self\n`);
  process.kill(process.pid, signal);
}
