/** What every e-mail transport does: send one message, or throw RetryableError / NonRetryableError. */
export type OutgoingEmail = {
  messageKey: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  /** Extra headers (alert mail: List-Unsubscribe and List-Unsubscribe-Post, RFC 8058). */
  headers?: Record<string, string> | null;
};

export type SendResult = { providerMessageId: string | null };

export type EmailTransport = {
  /** Recorded on each message: `sendgrid`, `smtp` or `outbox`. */
  readonly name: 'sendgrid' | 'smtp' | 'outbox';
  send(message: OutgoingEmail): Promise<SendResult>;
  close(): Promise<void>;
};

/** `Deal Radar <alerts@x>` → name and address (SendGrid wants them apart). */
export function parseMailbox(value: string): { name?: string; email: string } {
  const match = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(value);
  if (!match) return { email: value.trim() };
  const name = match[1]!.replace(/^"|"$/g, '').trim();
  return name ? { name, email: match[2]!.trim() } : { email: match[2]!.trim() };
}
