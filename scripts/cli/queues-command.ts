import { QUEUE_NAMES } from '../../services/shared/queues.js';
import type { CliCommand } from './command.js';

/** `npm run cli -- queues`: job counts per queue, to see where work is waiting or failing. */
export const queuesCommand: CliCommand = {
  name: 'queues',
  summary: 'Show job counts per queue (waiting, active, delayed, completed, failed)',
  async run(ctx) {
    const rows = [];
    for (const name of QUEUE_NAMES) {
      const counts = await ctx.queues.queue(name).getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
      rows.push({ queue: name, ...counts });
    }
    console.table(rows);
  },
};
