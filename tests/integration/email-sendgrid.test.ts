/**
 * E-mail through SendGrid: the real @sendgrid/mail SDK against a local fake API. The payload is
 * right, 5xx answers are retried with backoff, 4xx are not, and a message is never sent twice.
 */
import type { Job } from 'bullmq';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startNotifier } from '../../services/notifier/index.js';
import { queueEmail } from '../../services/notifier/queue-email.js';
import { findMessageByKey } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startFakeSendGrid, type FakeSendGrid } from '../support/fake-sendgrid.js';
import { waitFor } from '../support/wait.js';

let ctx: TestContext;
let sendgrid: FakeSendGrid;
let notifier: ServiceHandle;

beforeAll(async () => {
  sendgrid = await startFakeSendGrid();
  ctx = await createTestContext({ env: { SENDGRID_API_KEY: 'SG.test-key', SENDGRID_BASE_URL: sendgrid.baseUrl, MAIL_FROM: 'Deal Radar <alerts@dealradar.test>' } });
  notifier = await startNotifier(ctx);
});
afterAll(async () => {
  await notifier?.stop();
  await ctx?.close();
  await sendgrid?.close();
});
beforeEach(() => {
  sendgrid.requests.length = 0;
  sendgrid.script([]);
});

const fastRetries = { attempts: 4, backoff: { type: 'fixed' as const, delay: 150 } };

function payload(key: string) {
  return { channel: 'email' as const, messageKey: key, to: 'buyer@example.com', subject: `Subject ${key}`, text: `Text ${key}`, html: `<p>${key}</p>`, kind: 'test' };
}

async function settled(key: string) {
  return waitFor(async () => {
    const m = await findMessageByKey(ctx.database.db, key);
    return m && (m.status === 'sent' || m.status === 'failed') ? m : undefined;
  }, 20_000, `message ${key} to settle`);
}

async function jobState(jobId: string) {
  return waitFor(async () => {
    const state = await ctx.queues.queue('notify').getJobState(jobId);
    return state === 'completed' || state === 'failed' ? state : undefined;
  });
}

describe('SendGrid transport', () => {
  it('sends the message with the right payload and records it as sent', async () => {
    await queueEmail(ctx, { messageKey: 'sg-payload', to: 'Buyer@Example.com', subject: 'Reset your password', text: 'Plain body', html: '<p>HTML body</p>', kind: 'password_reset' });
    const message = await settled('sg-payload');
    expect(message).toMatchObject({ status: 'sent', transport: 'sendgrid', attempts: 1, providerMessageId: 'fake-1', lastError: null });
    expect(message.sentAt).toBeInstanceOf(Date);
    expect(sendgrid.requests).toHaveLength(1);
    const [request] = sendgrid.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/v3/mail/send');
    expect(request!.headers.authorization).toBe('Bearer SG.test-key');
    expect(request!.body).toMatchObject({
      from: { email: 'alerts@dealradar.test', name: 'Deal Radar' },
      subject: 'Reset your password',
      personalizations: [{ to: [{ email: 'Buyer@Example.com' }] }],
      content: [
        { type: 'text/plain', value: 'Plain body' },
        { type: 'text/html', value: '<p>HTML body</p>' },
      ],
      custom_args: { message_key: 'sg-payload' },
    });
  });

  it('retries 5xx answers with backoff, then records the success', async () => {
    sendgrid.script([500, 503]);
    const job = await ctx.queues.enqueue('notify', payload('sg-retry'), fastRetries);
    expect(await jobState(job.id!)).toBe('completed');
    const message = await settled('sg-retry');
    expect(message).toMatchObject({ status: 'sent', attempts: 3, transport: 'sendgrid' });
    expect(sendgrid.requests).toHaveLength(3);
  });

  it('records a message as failed, with the last error, once 5xx retries are used up', async () => {
    sendgrid.script([500, 500, 500, 500, 500]);
    const job = await ctx.queues.enqueue('notify', payload('sg-exhausted'), { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
    expect(await jobState(job.id!)).toBe('failed');
    const message = await settled('sg-exhausted');
    expect(message).toMatchObject({ status: 'failed', attempts: 3 });
    expect(message.lastError).toMatch(/SendGrid answered 500: Internal server error/);
    expect(sendgrid.requests).toHaveLength(3);
  });

  it('does not retry a 4xx: fails at once with the reason recorded', async () => {
    sendgrid.script([400]);
    const job = await ctx.queues.enqueue('notify', payload('sg-4xx'), fastRetries);
    expect(await jobState(job.id!)).toBe('failed');
    const failed = (await ctx.queues.queue('notify').getJob(job.id!)) as Job;
    expect(failed.attemptsMade).toBe(1);
    const message = await settled('sg-4xx');
    expect(message).toMatchObject({ status: 'failed', attempts: 1 });
    expect(message.lastError).toContain('SendGrid answered 400: personalizations.0.to: Does not contain a valid address.');
    expect(sendgrid.requests).toHaveLength(1);
  });

  it('never sends a message twice, however often its job runs or is queued', async () => {
    await queueEmail(ctx, { messageKey: 'sg-once', to: 'buyer@example.com', subject: 'Once', text: 'Once', kind: 'test' });
    await settled('sg-once');
    // The same message queued again (same key: the job id dedupes it)…
    await queueEmail(ctx, { messageKey: 'sg-once', to: 'buyer@example.com', subject: 'Once', text: 'Once', kind: 'test' });
    // …and its job run again under another id, as after the completed job was cleaned up.
    const rerun = await ctx.queues.enqueue('notify', payload('sg-once'), { jobId: 'notify-sg-once-rerun' });
    expect(await jobState(rerun.id!)).toBe('completed');
    expect(rerun.id).toBe('notify-sg-once-rerun');
    expect((await ctx.queues.queue('notify').getJob(rerun.id!))?.returnvalue).toEqual({ status: 'already-sent', transport: 'sendgrid' });
    expect(sendgrid.requests).toHaveLength(1);
    expect(await findMessageByKey(ctx.database.db, 'sg-once')).toMatchObject({ status: 'sent', attempts: 1 });
  });
});
