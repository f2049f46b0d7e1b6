/** The account page's delivery section (issue #22): is the user's address suppressed, and re-enabling it. */
import { apiRequest } from '../../../lib/api-client.js';

export type SuppressionStatus = {
  email: { address: string; suppressed: boolean; reason: string | null; detail: string | null; since: string | null };
  sms: { phone: string | null; opted_out: boolean; last_failure: string | null; last_failure_at: string | null };
};

export const suppressionsApi = {
  status: () => apiRequest<{ data: SuppressionStatus }>('/api/alerts/suppressions/').then((r) => r.data),
  reenableEmail: () => apiRequest<{ data: SuppressionStatus }>('/api/alerts/suppressions/email/', { method: 'DELETE' }).then((r) => r.data),
};

/** Why an address is suppressed, in the words the page shows. */
export function suppressionReasonText(reason: string | null): string {
  if (reason === 'spamreport') return 'an alert e-mail was reported as spam';
  if (reason === 'bounce' || reason === 'dropped') return 'e-mails to it bounced';
  return 'delivery failed';
}
