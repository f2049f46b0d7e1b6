/**
 * Mail that reaches the inbox (issue #22): SendGrid's signed event webhook suppresses addresses
 * that bounce or report spam, Twilio's status callback records SMS that failed, and the account
 * page shows a user's suppressed address with a way to re-enable it. The rules on events are
 * pure functions; `DeliverabilityService` wires them to the repositories.
 */
import { EventWebhook } from '@sendgrid/eventwebhook';
import type { AppContext } from '../shared/context.js';
import { HttpError, notFound, serviceUnavailable } from '../shared/errors.js';
import { recordAlertDelivery } from '../shared/repositories/alerts-repository.js';
import { optedOutPhones } from '../shared/repositories/alerts-repository.js';
import {
  findEmailSuppression,
  latestFailedSms,
  markMessageFailedAfterSend,
  markSmsFailedBySid,
  removeEmailSuppression,
  suppressEmail,
} from '../shared/repositories/suppressions-repository.js';
import { findUserById } from '../shared/repositories/users-repository.js';
import { toE164 } from './alert-rules.js';

/** At most this many events are read from one webhook post (SendGrid batches up to ~1,000). */
export const MAX_EVENTS = 5_000;

export type Suppression = { email: string; reason: 'bounce' | 'spamreport' | 'dropped'; detail: string | null; messageKey: string | null };

const str = (v: unknown, max: number): string | null => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : null);

/**
 * Which events suppress their address: a bounce (not a `blocked` one, which is the receiving
 * server refusing for now), a spam report, and a drop because SendGrid itself already knows the
 * address bounces or reported spam. Deliveries, opens and deferrals change nothing.
 */
export function suppressionsFromEvents(events: unknown): Suppression[] {
  if (!Array.isArray(events)) return [];
  const out: Suppression[] = [];
  for (const e of events.slice(0, MAX_EVENTS)) {
    if (!e || typeof e !== 'object') continue;
    const event = e as Record<string, unknown>;
    const email = str(event.email, 320);
    if (!email || !email.includes('@')) continue;
    const detail = str(event.reason, 500);
    const messageKey = str(event.message_key, 200);
    if (event.event === 'bounce' && event.type !== 'blocked') out.push({ email, reason: 'bounce', detail, messageKey });
    else if (event.event === 'spamreport') out.push({ email, reason: 'spamreport', detail, messageKey });
    else if (event.event === 'dropped' && detail && /bounced address|spam reporting address|invalid/i.test(detail)) out.push({ email, reason: 'dropped', detail, messageKey });
  }
  return out;
}

/** SendGrid's ECDSA signature over timestamp + raw body, checked with SendGrid's own library. */
export function verifySendGridSignature(publicKey: string, rawBody: string, signature: string, timestamp: string): boolean {
  try {
    const webhook = new EventWebhook();
    return webhook.verifySignature(webhook.convertPublicKeyToECDSA(publicKey), rawBody, signature, timestamp);
  } catch {
    return false; // a malformed key or signature is no signature
  }
}

/** What Twilio's status callback reports as not delivered, worded for the notifications list. */
export function smsFailure(status: string | undefined, errorCode: string | undefined): string | null {
  if (status !== 'failed' && status !== 'undelivered') return null;
  const code = errorCode && /^\d{1,6}$/.test(errorCode) ? ` (Twilio error ${errorCode})` : '';
  return `SMS ${status}${code}`;
}

export type SuppressionStatus = {
  email: { address: string; suppressed: boolean; reason: string | null; detail: string | null; since: string | null };
  sms: { phone: string | null; opted_out: boolean; last_failure: string | null; last_failure_at: string | null };
};

export class DeliverabilityService {
  constructor(private readonly ctx: Pick<AppContext, 'config' | 'database' | 'logger'>) {}

  private get db() {
    return this.ctx.database.db;
  }

  /** A signed post of SendGrid events: 403 unsigned or forged, 503 without a key configured. */
  async sendGridEvents(rawBody: string, signature: string | undefined, timestamp: string | undefined): Promise<{ suppressed: number }> {
    const key = this.ctx.config.SENDGRID_WEBHOOK_PUBLIC_KEY;
    if (!key) throw serviceUnavailable('The SendGrid event webhook is not configured (SENDGRID_WEBHOOK_PUBLIC_KEY).');
    if (!signature || !timestamp || !verifySendGridSignature(key, rawBody, signature, timestamp)) {
      throw new HttpError(403, 'Invalid SendGrid event webhook signature.');
    }
    let events: unknown;
    try {
      events = JSON.parse(rawBody);
    } catch {
      throw new HttpError(400, 'The event webhook body is not JSON.');
    }
    const found = suppressionsFromEvents(events);
    for (const s of found) {
      await suppressEmail(this.db, s.email, s.reason, s.detail);
      if (s.messageKey) {
        const error = `E-mail ${s.reason === 'spamreport' ? 'reported as spam' : 'bounced'}${s.detail ? `: ${s.detail}` : ''}`;
        if (await markMessageFailedAfterSend(this.db, s.messageKey, error)) await recordAlertDelivery(this.db, s.messageKey, { status: 'failed', error });
      }
    }
    if (found.length > 0) this.ctx.logger.info({ suppressed: found.length }, 'e-mail addresses suppressed from SendGrid events');
    return { suppressed: found.length };
  }

  /** Twilio's status callback (signature already checked): a failed SMS is recorded as failed. */
  async smsStatus(params: Record<string, string>): Promise<'recorded' | 'ignored'> {
    const failure = smsFailure(params.MessageStatus, params.ErrorCode);
    const sid = params.MessageSid ?? params.SmsSid;
    if (!failure || !sid || !/^[A-Za-z0-9]{10,64}$/.test(sid)) return 'ignored';
    const messageKey = await markSmsFailedBySid(this.db, sid, failure);
    if (!messageKey) return 'ignored';
    await recordAlertDelivery(this.db, messageKey, { status: 'failed', error: failure });
    return 'recorded';
  }

  async status(userId: number): Promise<SuppressionStatus> {
    const user = await findUserById(this.db, userId);
    if (!user) throw notFound();
    const suppression = await findEmailSuppression(this.db, user.email);
    const phone = toE164(user.phone);
    const failed = phone ? await latestFailedSms(this.db, phone) : null;
    return {
      email: {
        address: user.email,
        suppressed: Boolean(suppression),
        reason: suppression?.reason ?? null,
        detail: suppression?.detail ?? null,
        since: suppression ? suppression.createdAt.toISOString() : null,
      },
      sms: {
        phone,
        opted_out: phone ? (await optedOutPhones(this.db, [phone])).has(phone) : false,
        last_failure: failed?.error ?? null,
        last_failure_at: failed ? failed.at.toISOString() : null,
      },
    };
  }

  /** The owner re-enables their address (e.g. the mailbox is fixed): mail goes to it again. */
  async reenableEmail(userId: number): Promise<SuppressionStatus> {
    const user = await findUserById(this.db, userId);
    if (!user) throw notFound();
    await removeEmailSuppression(this.db, user.email);
    return this.status(userId);
  }
}
