import { listMessages, type OutboxMessage } from '../../services/shared/repositories/outbox-repository.js';
import { requeueStrandedMessages } from '../../services/notifier/requeue-stranded.js';
import { CliUsageError, parseArgs, type CliCommand, type FlagSpec } from './command.js';

const FLAGS: Record<string, FlagSpec> = {
  to: { kind: 'value', help: 'only messages to this address or phone number' },
  kind: { kind: 'value', help: 'only this kind of message (e.g. alert-instant, password-reset)' },
  limit: { kind: 'value', help: 'at most this many messages (default 20, up to 1000)' },
  requeue: { kind: 'boolean', help: 'put back messages recorded as queued whose job never reached the queue (writes)' },
  json: { kind: 'boolean', help: 'print JSON instead of text' },
};

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

/** One message for machines: its fields, the text body, no HTML. */
export function messageRecord(m: OutboxMessage) {
  return {
    id: m.id,
    createdAt: m.createdAt.toISOString(),
    channel: m.channel,
    kind: m.kind,
    status: m.status,
    transport: m.transport,
    attempts: m.attempts,
    recipient: m.recipient,
    subject: m.subject,
    lastError: m.lastError,
    textBody: m.textBody,
  };
}

/**
 * `npm run cli -- outbox [--to email] [--limit N] [--kind kind] [--json]`: the latest messages, newest
 * first, whatever their transport. With no provider configured this is where e-mail "arrives".
 * `--requeue` puts back messages recorded as queued whose job never reached the queue.
 */
export const outboxCommand: CliCommand = {
  name: 'outbox',
  summary: 'List sent and pending messages (e-mail, SMS), newest first',
  usage: '[--to <email>] [--limit <n>] [--kind <kind>] [--json] | --requeue',
  flags: FLAGS,
  async run(ctx, args) {
    const { flags } = parseArgs(args, FLAGS);
    if (flags.requeue) {
      if (flags.to || flags.kind || flags.limit) throw new CliUsageError('--requeue takes no filter: it puts back every stranded message.');
      const count = await requeueStrandedMessages(ctx);
      if (flags.json) process.stdout.write(`${JSON.stringify({ requeued: count })}\n`);
      else process.stdout.write(`${count} stranded message${count === 1 ? '' : 's'} put back on the notify queue.\n`);
      return 0;
    }
    const limit = flags.limit === undefined ? 20 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliUsageError('--limit must be a whole number from 1 to 1000.');
    const to = typeof flags.to === 'string' ? flags.to : undefined;
    const kind = typeof flags.kind === 'string' ? flags.kind : undefined;
    const messages = await listMessages(ctx.database.db, { to, kind, limit });
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(messages.map(messageRecord), null, 2)}\n`);
      return 0;
    }
    if (messages.length === 0) {
      process.stdout.write(`No messages${to ? ` to ${to}` : ''}.\n`);
      return 0;
    }
    process.stdout.write(`${messages.map(formatMessage).join('\n')}`);
    return 0;
  },
};
