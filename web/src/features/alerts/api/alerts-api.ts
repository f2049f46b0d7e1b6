/** The alerts API (`/api/alerts/*`), snake_case as the server speaks it. */
import { apiRequest } from '../../../lib/api-client.js';

export type DeliveryMethod = 'email' | 'sms';
/** Good or better (badge 60+, the default) or excellent only (80+). */
export type AlertDealLevel = 'good' | 'excellent';

export type Alert = {
  id: number;
  equipment_type: string;
  price_min: number | null;
  price_max: number | null;
  state: string | null;
  condition: string | null;
  delivery_method: DeliveryMethod;
  is_active: boolean;
  created_at: string;
  min_deal_score: number | null;
  deal_level: AlertDealLevel;
  include_unscored: boolean;
  keywords: string | null;
  frequency: 'instant' | 'daily';
  /** The buyer's ZIP code (issue 30): with radius_miles only lots within it match. */
  near_zip: string | null;
  radius_miles: number | null;
  /** Only lots whose discount under fair value exceeds the haul's high estimate from near_zip (issue 30). */
  worth_the_trip?: boolean;
};

export type AlertInput = {
  equipment_type: string;
  price_min: number | null;
  price_max: number | null;
  state: string | null;
  condition: string | null;
  delivery_method: DeliveryMethod;
  deal_level: AlertDealLevel;
  include_unscored: boolean;
  /** Premium: any minimum badge score 0–100, in place of deal_level. */
  min_deal_score?: number | null;
  /** Premium: every word must appear in the listing. */
  keywords?: string | null;
  /** A 5-digit US ZIP code: messages show the distance and the price delivered there. */
  near_zip?: string | null;
  /** With near_zip only: only lots within this many miles match. */
  radius_miles?: number | null;
  /** With near_zip only: only deals whose discount exceeds the estimated haul from it. */
  worth_the_trip?: boolean;
};

export type AlertNotification = {
  id: number;
  alert_id: number;
  equipment_type: string;
  event: 'match' | 'price_drop' | 'level_up';
  channel: DeliveryMethod;
  frequency: 'instant' | 'daily';
  /** Beyond the alert's daily limit of instant messages: it goes out in the next digest. */
  rolled_into_digest: boolean;
  status: string;
  error: string | null;
  price: number | null;
  deal_score: number | null;
  /** Why it was sent: the alert's criteria in one line. */
  criteria: string;
  deal_level: string | null;
  fair_value: number | null;
  value_low: number | null;
  value_high: number | null;
  auction_end_at: string | null;
  created_at: string;
  sent_at: string | null;
  listing: { id: number; slug: string; title: string; url: string };
};

export const alertsApi = {
  list: () => apiRequest<{ data: { items: Alert[] } }>('/api/alerts/').then((r) => r.data.items),
  create: (input: AlertInput) => apiRequest<{ data: Alert }>('/api/alerts/', { method: 'POST', body: input }).then((r) => r.data),
  setActive: (id: number, isActive: boolean) => apiRequest<{ data: Alert }>(`/api/alerts/${id}/`, { method: 'PATCH', body: { is_active: isActive } }).then((r) => r.data),
  remove: (id: number) => apiRequest<null>(`/api/alerts/${id}/`, { method: 'DELETE' }),
  notifications: () =>
    apiRequest<{ data: { items: AlertNotification[]; has_more: boolean } }>('/api/alerts/notifications/', { query: { limit: 20 } }).then((r) => r.data),
};
