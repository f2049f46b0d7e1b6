import { listMessages, type OutboxMessage } from '../../services/shared/repositories/outbox-repository.js';
import { requeueStrandedMessages } from '../../services/notifier/requeue-stranded.js';
import { parseArgs, type CliCommand } from './command.js';

/** One message as the operator reads it: headers, then the text body (links included). */
export function formatMessage(m: OutboxMessage): string {
  const lines = [
    `#${m.id}  ${m.createdAt.toISOString()}  ${m.channel}  ${m.status}${m.transport ? ` via ${m.transport}` : ''}  attempts ${m.attempts}  [${m.kind}]`,
    `To:      ${m.recipient}`,
  ];
  if (m.subject) lines.push(`Subject: ${m.subject}`);
  if (m.lastError) lines.push(`Error:   ${m.lastError}`);
  lines.push('', m.textBody, '');
  return lines.join('\n');
}

/**
 * `npm run cli -- outbox [--to email] [--limit N] [--kind kind]`: the latest messages, newest
 * first, whatever their transport. With no provider configured this is where e-mail "arrives".
 * `--requeue` puts back messages recorded as queued whose job never reached the queue.
 */
export const outboxCommand: CliCommand = {
  name: 'outbox',
  summary: 'List sent and pending messages (e-mail, SMS), newest first',
  usage: '[--to <email>] [--limit <n>] [--kind <kind>] | --requeue',
  async run(ctx, args) {
    const { flags } = parseArgs(args);
    if (flags.requeue) {
      const count = await requeueStrandedMessages(ctx);
      process.stdout.write(`${count} stranded message${count === 1 ? '' : 's'} put back on the notify queue.\n`);
      return 0;
    }
    const limit = flags.limit === undefined ? 20 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      process.stderr.write('--limit must be a whole number from 1 to 1000\n');
      return 2;
    }
    const to = typeof flags.to === 'string' ? flags.to : undefined;
    const kind = typeof flags.kind === 'string' ? flags.kind : undefined;
    const messages = await listMessages(ctx.database.db, { to, kind, limit });
    if (messages.length === 0) {
      process.stdout.write(`No messages${to ? ` to ${to}` : ''}.\n`);
      return 0;
    }
    process.stdout.write(`${messages.map(formatMessage).join('\n')}`);
    return 0;
  },
};
