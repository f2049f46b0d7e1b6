/**
 * The notify-queue idempotency keys of alert messages. They are derived from what the message
 * is about, so queueing it again (a job run twice, a retry after a crash) names the same message
 * and the message log sends it once; the notifier parses them back to report delivery.
 */
export const ALERT_MESSAGE_KIND = 'alert';
export const ALERT_DIGEST_KIND = 'alert_digest';

export function instantMessageKey(notificationId: number): string {
  return `alert:${notificationId}`;
}

export function digestMessageKey(alertId: number, day: string): string {
  return `alert-digest:${alertId}:${day}`;
}

export type AlertMessageRef = { kind: 'instant'; notificationId: number } | { kind: 'digest'; alertId: number; day: string };

export function parseAlertMessageKey(key: string): AlertMessageRef | null {
  let m = /^alert:(\d{1,10})$/.exec(key);
  if (m) return { kind: 'instant', notificationId: Number(m[1]) };
  m = /^alert-digest:(\d{1,10}):(\d{4}-\d{2}-\d{2})$/.exec(key);
  if (m) return { kind: 'digest', alertId: Number(m[1]), day: m[2]! };
  return null;
}
