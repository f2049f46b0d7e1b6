/**
 * The e-mail capability on the notify queue: the local outbox transport (no provider set),
 * SMTP through nodemailer against a local server, SMS failed honestly without an SMS transport,
 * stranded messages put back, and the operator's
 * `outbox` command.
 */
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNotifyHandler, SMS_NOT_SUPPORTED } from '../../services/notifier/deliver-message.js';
import { createOutboxTransport } from '../../services/notifier/transports/outbox-transport.js';
import { NonRetryableError } from '../../services/shared/errors.js';
import { startNotifier } from '../../services/notifier/index.js';
import { queueEmail } from '../../services/notifier/queue-email.js';
import { requeueStrandedMessages } from '../../services/notifier/requeue-stranded.js';
import { findMessageByKey, listMessages, recordQueuedMessage } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { outboxCommand } from '../../scripts/cli/outbox-command.js';
import { CliUsageError } from '../../scripts/cli/command.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startFakeSmtp, type FakeSmtp } from '../support/fake-smtp.js';
import { waitFor } from '../support/wait.js';

async function settled(ctx: TestContext, key: string) {
  return waitFor(async () => {
    const m = await findMessageByKey(ctx.database.db, key);
    return m && (m.status === 'sent' || m.status === 'failed') ? m : undefined;
  }, 20_000, `message ${key} to settle`);
}

async function finalState(ctx: TestContext, jobId: string) {
  return waitFor(async () => {
    const state = await ctx.queues.queue('notify').getJobState(jobId);
    return state === 'completed' || state === 'failed' ? state : undefined;
  });
}

async function captureStdout(fn: () => Promise<unknown>): Promise<{ out: string; result: unknown }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    const result = await fn();
    return { out, result };
  } finally {
    spy.mockRestore();
  }
}

describe('outbox transport (no provider configured)', () => {
  let ctx: TestContext;
  let notifier: ServiceHandle;
  beforeAll(async () => {
    ctx = await createTestContext();
    notifier = await startNotifier(ctx);
  });
  afterAll(async () => {
    await notifier?.stop();
    await ctx?.close();
  });

  it('records the message as queued, then delivered to the outbox', async () => {
    await queueEmail(ctx, { messageKey: 'outbox-1', to: 'ops@example.com', subject: 'Hello', text: 'Body with https://example.com/x', kind: 'test' });
    const message = await settled(ctx, 'outbox-1');
    expect(message).toMatchObject({ channel: 'email', status: 'sent', transport: 'outbox', attempts: 1, recipient: 'ops@example.com', subject: 'Hello' });
  });

  it('keeps one message per key, however often it is queued', async () => {
    for (let i = 0; i < 3; i++) await queueEmail(ctx, { messageKey: 'outbox-dup', to: 'dup@example.com', subject: 'Once', text: 'Once', kind: 'test' });
    await settled(ctx, 'outbox-dup');
    const rerun = await ctx.queues.enqueue('notify', { channel: 'email', messageKey: 'outbox-dup', to: 'dup@example.com', subject: 'Once', text: 'Once' }, { jobId: 'outbox-dup-rerun' });
    expect(await finalState(ctx, rerun.id!)).toBe('completed');
    const rows = await listMessages(ctx.database.db, { to: 'dup@example.com' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('records a job added straight to the queue (without queueEmail) too', async () => {
    await ctx.queues.enqueue('notify', { channel: 'email', messageKey: 'direct-1', to: 'direct@example.com', subject: 'Direct', text: 'Direct', kind: 'alert' });
    expect(await settled(ctx, 'direct-1')).toMatchObject({ status: 'sent', kind: 'alert' });
  });

  it('puts back messages whose job never reached the queue, without duplicating the others', async () => {
    // As if the queue store was down when queueEmail ran: recorded as queued, no job.
    await recordQueuedMessage(ctx.database.db, { messageKey: 'stranded-1', channel: 'email', kind: 'test', recipient: 'stranded@example.com', subject: 'Lost?', textBody: 'Not lost' });
    await ctx.database.sql`UPDATE outbox_messages SET updated_at = now() - interval '10 minutes' WHERE message_key = 'stranded-1'`;
    expect(await requeueStrandedMessages(ctx, 60)).toBe(1);
    expect(await settled(ctx, 'stranded-1')).toMatchObject({ status: 'sent', attempts: 1 });
    // Sent messages are not candidates; running the sweep again finds nothing.
    expect(await requeueStrandedMessages(ctx, 60)).toBe(0);
    const { out } = await captureStdout(() => outboxCommand.run(ctx, ['--requeue']));
    expect(out).toBe('0 stranded messages put back on the notify queue.\n');
  });

  it('fails SMS as not supported, recorded, when the handler has no SMS transport', async () => {
    // The handler alone, as a notifier built without an SMS transport runs it.
    const handler = createNotifyHandler({ db: ctx.database.db, transport: createOutboxTransport(), mailFrom: 'x@example.com', logger: ctx.logger });
    const job = { opts: { attempts: 3 }, attemptsMade: 0 } as unknown as Job;
    const sms = { channel: 'sms' as const, messageKey: 'sms-1', to: '+15550100', body: 'Deal found', kind: 'alert' };
    const error = await handler(sms, job).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(NonRetryableError);
    expect((error as Error).message).toBe(SMS_NOT_SUPPORTED);
    expect(await findMessageByKey(ctx.database.db, 'sms-1')).toMatchObject({ channel: 'sms', status: 'failed', recipient: '+15550100', textBody: 'Deal found', lastError: SMS_NOT_SUPPORTED });
  });

  it('lists messages for the operator: npm run cli -- outbox [--to] [--limit]', async () => {
    await queueEmail(ctx, { messageKey: 'cli-1', to: 'cli@example.com', subject: 'First', text: 'Link: http://localhost:8080/reset/MQ/abc', kind: 'password_reset' });
    await queueEmail(ctx, { messageKey: 'cli-2', to: 'cli@example.com', subject: 'Second', text: 'Second body', kind: 'test' });
    await settled(ctx, 'cli-1');
    await settled(ctx, 'cli-2');
    const { out, result } = await captureStdout(() => outboxCommand.run(ctx, ['--to', 'CLI@example.com', '--limit', '5']));
    expect(result).toBe(0);
    expect(out).toContain('To:      cli@example.com');
    expect(out).toContain('Subject: First');
    expect(out).toContain('http://localhost:8080/reset/MQ/abc');
    expect(out.indexOf('Subject: Second')).toBeLessThan(out.indexOf('Subject: First')); // newest first
    expect(out).not.toContain('ops@example.com');
    const one = await captureStdout(() => outboxCommand.run(ctx, ['--limit', '1']));
    expect(one.out.match(/^#\d+ /gm)).toHaveLength(1);
    const none = await captureStdout(() => outboxCommand.run(ctx, ['--to', 'nobody@example.com']));
    expect(none.out).toBe('No messages to nobody@example.com.\n');
    // A bad flag is a usage error the CLI prints with the command's usage and exit code 2.
    await expect(outboxCommand.run(ctx, ['--limit', 'lots'])).rejects.toThrow(CliUsageError);
    await expect(outboxCommand.run(ctx, ['--limit', 'lots'])).rejects.toThrow('--limit must be a whole number from 1 to 1000.');
  });
});

describe('SMTP transport', () => {
  let ctx: TestContext;
  let smtp: FakeSmtp;
  let notifier: ServiceHandle;
  beforeAll(async () => {
    smtp = await startFakeSmtp();
    ctx = await createTestContext({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Deal Radar <alerts@dealradar.test>' } });
    notifier = await startNotifier(ctx);
  });
  afterAll(async () => {
    await notifier?.stop();
    await ctx?.close();
    await smtp?.close();
  });

  it('delivers through the SMTP server', async () => {
    await queueEmail(ctx, { messageKey: 'smtp-1', to: 'buyer@example.com', subject: 'Via SMTP', text: 'Hello over SMTP', kind: 'test' });
    expect(await settled(ctx, 'smtp-1')).toMatchObject({ status: 'sent', transport: 'smtp', attempts: 1 });
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.to[0]).toContain('buyer@example.com');
    expect(smtp.received[0]!.data).toContain('Subject: Via SMTP');
    expect(smtp.received[0]!.data).toContain('Hello over SMTP');
    expect(smtp.received[0]!.data).toContain('X-Deal-Radar-Message-Key: smtp-1');
  });

  it('retries a temporary refusal (4xx) and gives up at once on a permanent one (5xx)', async () => {
    smtp.script([451]);
    const retried = await ctx.queues.enqueue('notify', { channel: 'email', messageKey: 'smtp-451', to: 'later@example.com', subject: 'S', text: 'T' }, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
    expect(await finalState(ctx, retried.id!)).toBe('completed');
    expect(await findMessageByKey(ctx.database.db, 'smtp-451')).toMatchObject({ status: 'sent', attempts: 2 });

    smtp.script([550]);
    const refused = await ctx.queues.enqueue('notify', { channel: 'email', messageKey: 'smtp-550', to: 'nobody@example.com', subject: 'S', text: 'T' }, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
    expect(await finalState(ctx, refused.id!)).toBe('failed');
    expect(((await ctx.queues.queue('notify').getJob(refused.id!)) as Job).attemptsMade).toBe(1);
    const message = await findMessageByKey(ctx.database.db, 'smtp-550');
    expect(message).toMatchObject({ status: 'failed', attempts: 1 });
    expect(message!.lastError).toMatch(/SMTP server refused the message \(550\)/);
  });
});

describe('notifier start-up', () => {
  it('puts back messages stranded while it was down', async () => {
    const ctx = await createTestContext();
    let notifier: ServiceHandle | undefined;
    try {
      await recordQueuedMessage(ctx.database.db, { messageKey: 'stranded-at-start', channel: 'email', kind: 'test', recipient: 'later@example.com', subject: 'S', textBody: 'T' });
      await ctx.database.sql`UPDATE outbox_messages SET updated_at = now() - interval '10 minutes'`;
      notifier = await startNotifier(ctx);
      expect(await settled(ctx, 'stranded-at-start')).toMatchObject({ status: 'sent', transport: 'outbox' });
    } finally {
      await notifier?.stop();
      await ctx.close();
    }
  });
});
