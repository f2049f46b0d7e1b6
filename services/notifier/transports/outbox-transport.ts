import type { EmailTransport, SendResult } from './email-transport.js';

/**
 * No provider configured: the message stays in the outbox table (already recorded there), where
 * the operator lists it with `npm run cli -- outbox` and tests read it. Nothing leaves the machine.
 */
export function createOutboxTransport(): EmailTransport {
  return {
    name: 'outbox',
    async send(): Promise<SendResult> {
      return { providerMessageId: null };
    },
    async close() {},
  };
}
