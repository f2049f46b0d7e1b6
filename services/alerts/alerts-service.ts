/**
 * The alerts API's work: the signed-in user's alerts with the plan's limits (entitlements from
 * billing), the notifications list, the unsubscribe link and Twilio's STOP replies. Routes call
 * this; the rules are the pure functions of alert-rules.ts.
 */
import { loadOrCreateSecret } from '../accounts/signing-keys.js';
import { entitlementsOf } from '../billing/billing-service.js';
import type { AppContext } from '../shared/context.js';
import { forbidden, notFound, ValidationError } from '../shared/errors.js';
import {
  criteriaOf,
  deactivateAlert,
  deleteUserAlert,
  findAlertById,
  findUserAlert,
  insertAlertWithinLimit,
  listAlerts,
  listUserNotifications,
  recordSmsOptOut,
  removeSmsOptOut,
  updateUserAlert,
  type AlertRow,
  type NotificationListRow,
} from '../shared/repositories/alerts-repository.js';
import { findUserById } from '../shared/repositories/users-repository.js';
import { categoryName, MESSAGES, planViolation, toE164, validateAlert, type AlertCriteria, type AlertInput } from './alert-rules.js';
import { criteriaText, dealLevelLabel, dealUrl } from './alert-messages.js';
import type { NotificationEvent } from '../../db/schema/alerts.js';
import { unsubscribeKey, verifyUnsubscribeToken } from './unsubscribe-tokens.js';

export type AlertResponse = {
  id: number;
  equipment_type: string;
  price_min: number | null;
  price_max: number | null;
  state: string | null;
  condition: string | null;
  delivery_method: 'email' | 'sms';
  is_active: boolean;
  created_at: string;
  min_deal_score: number | null;
  deal_level: 'good' | 'excellent';
  include_unscored: boolean;
  keywords: string | null;
  frequency: 'instant' | 'daily';
  near_zip: string | null;
  radius_miles: number | null;
  worth_the_trip: boolean;
};

export type NotificationResponse = {
  id: number;
  alert_id: number;
  equipment_type: string;
  event: NotificationEvent;
  channel: 'email' | 'sms';
  frequency: 'instant' | 'daily';
  /** An instant alert's match beyond its daily cap: it goes out in the next digest. */
  rolled_into_digest: boolean;
  status: string;
  error: string | null;
  price: number | null;
  deal_score: number | null;
  /** Why it was sent, as the message said it: the alert's criteria in one line. */
  criteria: string;
  /** 'Excellent Deal', 'Good Deal', … or null when the lot was not valued. */
  deal_level: string | null;
  fair_value: number | null;
  value_low: number | null;
  value_high: number | null;
  auction_end_at: string | null;
  created_at: string;
  sent_at: string | null;
  listing: { id: number; slug: string; title: string; url: string };
};

export function toAlertResponse(row: AlertRow): AlertResponse {
  return {
    id: row.id,
    equipment_type: categoryName(row.categoryId),
    price_min: row.priceMin,
    price_max: row.priceMax,
    state: row.state,
    condition: row.condition,
    delivery_method: row.deliveryMethod,
    is_active: row.isActive,
    created_at: row.createdAt.toISOString(),
    min_deal_score: row.minDealScore,
    deal_level: row.dealLevel,
    include_unscored: row.includeUnscored,
    keywords: row.keywords,
    frequency: row.frequency,
    near_zip: row.nearZip,
    radius_miles: row.radiusMiles,
    worth_the_trip: row.worthTheTrip,
  };
}

const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE']);
const START_WORDS = new Set(['START', 'YES', 'UNSTOP', 'OPTIN']);

/** The signing key of unsubscribe links (derived from the product's secret, as tokens are). */
export function alertLinkKey(config: AppContext['config']): Buffer {
  return unsubscribeKey(config.JWT_SECRET ?? loadOrCreateSecret(config.DATA_DIR));
}

export class AlertsService {
  private readonly linkKey: Buffer;

  constructor(private readonly ctx: AppContext) {
    this.linkKey = alertLinkKey(ctx.config);
  }

  private get db() {
    return this.ctx.database.db;
  }

  async list(userId: number): Promise<AlertResponse[]> {
    return (await listAlerts(this.db, userId)).map(toAlertResponse);
  }

  private validate(input: AlertInput, base?: AlertCriteria): AlertCriteria {
    const result = validateAlert(input, base);
    if (!result.ok) throw new ValidationError(result.errors);
    return result.criteria;
  }

  /** SMS needs a phone on the profile that can be texted. */
  private async assertPhone(userId: number): Promise<void> {
    const user = await findUserById(this.db, userId);
    if (!toE164(user?.phone)) throw ValidationError.field('delivery_method', MESSAGES.phoneRequired);
  }

  async create(userId: number, input: AlertInput): Promise<AlertResponse> {
    const criteria = this.validate(input);
    const plan = await entitlementsOf(this.db, userId);
    const violation = planViolation(plan, {
      creating: false,
      existingAlerts: 0,
      setsSms: criteria.deliveryMethod === 'sms',
      setsAdvancedFilters: criteria.minDealScore !== null || criteria.keywordTerms !== null,
    });
    if (violation) throw forbidden(violation);
    if (criteria.deliveryMethod === 'sms') await this.assertPhone(userId);
    const row = await insertAlertWithinLimit(this.db, userId, criteria, plan.maxAlerts);
    if (row === 'limit') throw forbidden(MESSAGES.alertLimit(plan.maxAlerts ?? 0));
    return toAlertResponse(row);
  }

  async update(userId: number, alertId: number, input: AlertInput): Promise<AlertResponse> {
    const existing = await findUserAlert(this.db, userId, alertId);
    if (!existing) throw notFound();
    const base = criteriaOf(existing);
    const criteria = this.validate(input, base);
    // Judge only what this request sets, so a user who downgraded can still pause old alerts.
    const setsSms = input.delivery_method === 'sms' && base.deliveryMethod !== 'sms';
    const setsAdvancedFilters =
      (input.min_deal_score !== undefined && criteria.minDealScore !== null && criteria.minDealScore !== base.minDealScore) ||
      (input.keywords !== undefined && criteria.keywords !== null && criteria.keywords !== base.keywords);
    if (setsSms || setsAdvancedFilters) {
      const violation = planViolation(await entitlementsOf(this.db, userId), { creating: false, existingAlerts: 0, setsSms, setsAdvancedFilters });
      if (violation) throw forbidden(violation);
    }
    if (setsSms) await this.assertPhone(userId);
    const row = await updateUserAlert(this.db, userId, alertId, criteria);
    if (!row) throw notFound();
    return toAlertResponse(row);
  }

  async remove(userId: number, alertId: number): Promise<void> {
    if (!(await deleteUserAlert(this.db, userId, alertId))) throw notFound();
  }

  async notifications(userId: number, opts: { limit: number; beforeId?: number }): Promise<{ items: NotificationResponse[]; has_more: boolean }> {
    const rows = await listUserNotifications(this.db, userId, { limit: opts.limit + 1, beforeId: opts.beforeId });
    return { items: rows.slice(0, opts.limit).map((r) => this.toNotification(r)), has_more: rows.length > opts.limit };
  }

  private toNotification(r: NotificationListRow): NotificationResponse {
    return {
      id: r.id,
      alert_id: r.alertId,
      equipment_type: categoryName(r.categoryId),
      event: r.event,
      channel: r.channel,
      frequency: r.frequency,
      rolled_into_digest: r.frequency === 'daily' && r.alertFrequency === 'instant',
      status: r.status,
      error: r.error,
      price: r.priceUsd,
      deal_score: r.dealScore,
      criteria: criteriaText({
        id: r.alertId,
        equipmentType: categoryName(r.categoryId),
        priceMin: r.priceMin,
        priceMax: r.priceMax,
        state: r.alertState,
        condition: r.alertCondition,
        dealLevel: r.dealLevel,
        minDealScore: r.minDealScore,
        includeUnscored: r.includeUnscored,
        keywords: r.keywords,
        nearZip: r.nearZip,
        radiusMiles: r.radiusMiles,
        worthTheTrip: r.worthTheTrip,
      }),
      deal_level: r.dealScore === null ? null : dealLevelLabel(r.dealScore),
      fair_value: r.fairValue,
      value_low: r.valueLow,
      value_high: r.valueHigh,
      auction_end_at: r.auctionEndAt ? new Date(r.auctionEndAt).toISOString() : null,
      created_at: new Date(r.createdAt).toISOString(),
      sent_at: r.sentAt ? new Date(r.sentAt).toISOString() : null,
      listing: { id: r.listingId, slug: r.slug, title: r.title, url: dealUrl(this.ctx.config.APP_URL, r.slug) },
    };
  }

  /** What a signed link names (the confirm page; changes nothing); null for a bad or unknown token. */
  async unsubscribeTarget(token: string): Promise<{ equipmentType: string; isActive: boolean } | null> {
    const alertId = verifyUnsubscribeToken(this.linkKey, token);
    if (alertId === null) return null;
    const row = await findAlertById(this.db, alertId);
    return row ? { equipmentType: categoryName(row.categoryId), isActive: row.isActive } : null;
  }

  /** The one-click POST or the confirm button: turns the alert off; null for a bad or unknown token. */
  async unsubscribe(token: string): Promise<{ equipmentType: string } | null> {
    const alertId = verifyUnsubscribeToken(this.linkKey, token);
    if (alertId === null) return null;
    const row = await deactivateAlert(this.db, alertId);
    return row ? { equipmentType: categoryName(row.categoryId) } : null;
  }

  /**
   * An inbound SMS (already signature-checked): STOP and Twilio's other opt-out words turn SMS
   * off for that number; START turns it back on. Returns what was done.
   */
  async inboundSms(from: string, body: string): Promise<'opted-out' | 'opted-in' | 'ignored'> {
    const phone = toE164(from);
    if (!phone) return 'ignored';
    const word = body.trim().toUpperCase().split(/\s+/)[0] ?? '';
    if (STOP_WORDS.has(word)) {
      await recordSmsOptOut(this.db, phone, word);
      this.ctx.logger.info({ phone: `${phone.slice(0, 4)}…` }, 'sms opt-out recorded');
      return 'opted-out';
    }
    if (START_WORDS.has(word)) {
      await removeSmsOptOut(this.db, phone);
      return 'opted-in';
    }
    return 'ignored';
  }
}
