import type { AppContext } from './context.js';

/**
 * A cron schedule. Its tick only enqueues work, with job ids derived from `slot` (the tick's
 * time, truncated to the minute), so two schedulers firing the same tick add each job once.
 *
 * The type lives in shared (not in the scheduler) so that each stage's schedules and the
 * scheduler's list of them both depend on it downward: the scheduler imports the stages, the
 * stages import only shared.
 */
export type Schedule = {
  name: string;
  cron: (ctx: AppContext) => string;
  enabled?: (ctx: AppContext) => boolean;
  tick: (ctx: AppContext, slot: string) => Promise<void>;
};
