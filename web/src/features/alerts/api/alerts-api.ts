/** The alerts API (`/api/alerts/*`), snake_case as the server speaks it. */
import { apiRequest } from '../../../lib/api-client.js';

export type DeliveryMethod = 'email' | 'sms';

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
  keywords: string | null;
  frequency: 'instant' | 'daily';
};

export type AlertInput = {
  equipment_type: string;
  price_min: number | null;
  price_max: number | null;
  state: string | null;
  condition: string | null;
  delivery_method: DeliveryMethod;
};

export type AlertNotification = {
  id: number;
  alert_id: number;
  equipment_type: string;
  event: 'match' | 'price_drop';
  channel: DeliveryMethod;
  frequency: 'instant' | 'daily';
  status: string;
  error: string | null;
  price: number | null;
  deal_score: number | null;
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
