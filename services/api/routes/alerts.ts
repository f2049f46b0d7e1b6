/**
 * `/api/alerts/*` (PRODUCT.md "Alerts"): the signed-in user's saved criteria and what was sent
 * for them; the unsubscribe link of every alert e-mail (signed, no login); Twilio's inbound SMS
 * webhook (signature verified) for STOP replies; and `/d/<id>`, the short deal link of SMS.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import twilio from 'twilio';
import { z } from 'zod';
import { escapeHtml } from '../../alerts/alert-messages.js';
import { AlertsService } from '../../alerts/alerts-service.js';
import type { AppContext } from '../../shared/context.js';
import { HttpError, serviceUnavailable } from '../../shared/errors.js';
import { findListingDetail } from '../../shared/repositories/listings-repository.js';
import { requireUser, signedInUser } from '../plugins/auth.js';
import { alertDeliverabilityRoutes } from './alert-deliverability.js';

const wholeOrText = z.union([z.number(), z.string().max(32, 'Enter a whole number.')], { error: 'Enter a whole number.' }).nullish();

const alertBody = z.object({
  equipment_type: z.string({ error: 'Please select an equipment type' }).max(100, 'Please select an equipment type').nullish(),
  price_min: wholeOrText,
  price_max: wholeOrText,
  state: z.string({ error: 'Select a US state (two-letter code, e.g. TX).' }).max(64).nullish(),
  condition: z.string({ error: 'Select a condition.' }).max(64).nullish(),
  delivery_method: z.enum(['email', 'sms'], { error: 'Choose email or sms.' }).optional(),
  is_active: z.boolean({ error: 'Must be true or false.' }).optional(),
  min_deal_score: wholeOrText.describe('Premium: any minimum badge score 0–100, in place of deal_level. Null: use deal_level.'),
  deal_level: z
    .string({ error: 'Choose good or excellent.' })
    .max(32)
    .nullish()
    .describe("Every plan: 'good' (good or better, badge ≥ 60; the default when omitted, so older clients get deals only) or 'excellent' (badge ≥ 80)."),
  include_unscored: z
    .boolean({ error: 'Must be true or false.' })
    .nullish()
    .describe('Also notify listings that cannot be valued (no deal score). Default false.'),
  keywords: z.string({ error: 'Enter keywords as text.' }).max(1000, 'Use at most 200 characters of keywords.').nullish(),
  frequency: z.enum(['instant', 'daily'], { error: 'Choose instant or daily.' }).optional(),
  near_zip: z
    .string({ error: 'Enter a US ZIP code (5 digits).' })
    .max(16, 'Enter a US ZIP code (5 digits).')
    .nullish()
    .describe("The buyer's US ZIP code: with radius_miles only lots within it match; messages then show the distance and the price delivered there."),
  radius_miles: wholeOrText.describe('With near_zip: only lots within this many miles (1–3000, as the crow flies). Null: no distance filter.'),
  worth_the_trip: z
    .boolean({ error: 'Must be true or false.' })
    .nullish()
    .describe(
      "Only lots whose discount under fair value exceeds the estimated haul's high end from near_zip (which it needs: a 400 without it). Default false.",
    ),
});

const alert = z.object({
  id: z.number().int(),
  equipment_type: z.string(),
  price_min: z.number().int().nullable(),
  price_max: z.number().int().nullable(),
  state: z.string().nullable(),
  condition: z.string().nullable(),
  delivery_method: z.enum(['email', 'sms']),
  is_active: z.boolean(),
  created_at: z.string(),
  min_deal_score: z.number().int().nullable(),
  deal_level: z.enum(['good', 'excellent']).describe('Added in issue #22; alerts created before it are `good`.'),
  include_unscored: z.boolean(),
  keywords: z.string().nullable(),
  frequency: z.enum(['instant', 'daily']),
  near_zip: z.string().nullable().describe('Added in issue 30.'),
  radius_miles: z.number().int().nullable().describe('Added in issue 30.'),
  worth_the_trip: z.boolean().describe("Added in issue 30: only lots whose discount under fair value exceeds the haul's high estimate from near_zip."),
});

const notification = z.object({
  id: z.number().int(),
  alert_id: z.number().int(),
  equipment_type: z.string(),
  event: z.enum(['match', 'price_drop', 'level_up']).describe('level_up (issue #22): the deal level went up since the last message.'),
  channel: z.enum(['email', 'sms']),
  frequency: z.enum(['instant', 'daily']),
  rolled_into_digest: z.boolean().describe("An instant alert's match beyond its daily cap: sent in the next daily digest."),
  status: z.string(),
  error: z.string().nullable(),
  price: z.number().nullable(),
  deal_score: z.number().int().nullable(),
  criteria: z.string().describe("Why it was sent: the alert's criteria, as the message said them."),
  deal_level: z.string().nullable(),
  fair_value: z.number().nullable(),
  value_low: z.number().nullable(),
  value_high: z.number().nullable(),
  auction_end_at: z.string().nullable(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
  listing: z.object({ id: z.number().int(), slug: z.string(), title: z.string(), url: z.string() }),
});

/**
 * The unsubscribe link's query string: open (z.looseObject), because mail clients and click
 * trackers add parameters (utm_*) to links in e-mails; only the token is read.
 */
const unsubscribeQuery = z.looseObject({ token: z.string().max(200).optional() });

const idParams = z.object({ id: z.coerce.number({ error: 'Not a valid alert id.' }).int().positive().max(2_147_483_647) });
const detail = z.object({ detail: z.string() });
const security = [{ bearer: [] }];

function page(title: string, message: string, form?: { action: string; button: string }): string {
  const confirm = form
    ? `<form method="post" action="${escapeHtml(form.action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit" style="font-size:1rem;padding:.5rem 1rem">${escapeHtml(form.button)}</button></form>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · Deal Radar</title></head><body style="font-family:Arial,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${confirm}<p><a href="/alerts">Manage your alerts</a></p></body></html>`;
}

export function alertRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const alerts = new AlertsService(ctx);
  const auth = requireUser(ctx);

  return async (app) => {
    app.get(
      '/api/alerts/',
      { preValidation: auth, schema: { tags: ['alerts'], summary: "The user's alerts, newest first", security, response: { 200: z.object({ data: z.object({ items: z.array(alert) }) }) } } },
      async (request) => ({ data: { items: await alerts.list(signedInUser(request).id) } }),
    );

    app.post(
      '/api/alerts/',
      {
        preValidation: auth,
        schema: { tags: ['alerts'], summary: 'Create an alert (plan limits apply)', security, body: alertBody, response: { 201: z.object({ data: alert }), 403: detail } },
      },
      async (request, reply) => reply.status(201).send({ data: await alerts.create(signedInUser(request).id, request.body) }),
    );

    app.get(
      '/api/alerts/notifications/',
      {
        preValidation: auth,
        schema: {
          tags: ['alerts'],
          summary: "What was matched and sent for the user's alerts, newest first",
          security,
          querystring: z.object({
            limit: z.coerce.number().int().min(1).max(200).default(50),
            before_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
          }),
          response: { 200: z.object({ data: z.object({ items: z.array(notification), has_more: z.boolean() }) }) },
        },
      },
      async (request) => ({ data: await alerts.notifications(signedInUser(request).id, { limit: request.query.limit, beforeId: request.query.before_id }) }),
    );

    app.patch(
      '/api/alerts/:id/',
      {
        preValidation: auth,
        schema: { tags: ['alerts'], summary: 'Change an alert (e.g. is_active)', security, params: idParams, body: alertBody, response: { 200: z.object({ data: alert }), 403: detail, 404: detail } },
      },
      async (request) => ({ data: await alerts.update(signedInUser(request).id, request.params.id, request.body) }),
    );

    app.delete(
      '/api/alerts/:id/',
      { preValidation: auth, schema: { tags: ['alerts'], summary: 'Delete an alert', security, params: idParams, response: { 204: z.null(), 404: detail } } },
      async (request, reply) => {
        await alerts.remove(signedInUser(request).id, request.params.id);
        return reply.status(204).send(null);
      },
    );

    // The link in the body opens a page with a confirm button: a GET never changes state, so mail
    // scanners that follow links do not turn alerts off. The button, and mail clients' one-click
    // unsubscribe (List-Unsubscribe-Post, RFC 8058), POST to the same URL (below).
    app.get(
      '/api/alerts/unsubscribe/',
      {
        config: { rateLimit: { max: 60, timeWindow: 60_000 } },
        schema: {
          tags: ['alerts'],
          summary: 'The unsubscribe link of alert e-mails: a page asking to confirm (changes nothing)',
          querystring: unsubscribeQuery,
        },
      },
      async (request, reply) => {
        const token = request.query.token ?? '';
        const found = token ? await alerts.unsubscribeTarget(token) : null;
        reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
        if (!found) return reply.status(400).send(page('Link not valid', 'This unsubscribe link is not valid, or its alert was deleted.'));
        if (!found.isActive) return reply.send(page('Alert already off', `Your alert for ${found.equipmentType} is turned off. You get no messages for it.`));
        return reply.send(
          page(`Turn off your ${found.equipmentType} alert?`, 'You will get no more e-mails or texts for this alert. You can turn it on again on your alerts page.', {
            action: `/api/alerts/unsubscribe/?token=${encodeURIComponent(token)}`,
            button: 'Turn this alert off',
          }),
        );
      },
    );

    app.get(
      '/d/:code',
      { schema: { hide: true, params: z.object({ code: z.string().max(16) }) } },
      async (request, reply) => {
        const id = /^[0-9a-z]{1,7}$/.test(request.params.code) ? parseInt(request.params.code, 36) : NaN;
        const listing = Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? await findListingDetail(ctx.database.db, { id }) : undefined;
        return reply.redirect(listing ? `/deal/${encodeURIComponent(listing.slug)}` : '/dashboard', 302);
      },
    );

    await app.register(alertDeliverabilityRoutes(ctx));

    // Twilio posts form-encoded fields and signs URL + sorted fields; one-click unsubscribe posts
    // `List-Unsubscribe=One-Click` form-encoded or as multipart (RFC 8058): parse them in this scope only.
    await app.register(async (scoped) => {
      scoped.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });
      scoped.addContentTypeParser('multipart/form-data', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, _body, done) => done(null, {}));

      scoped.post(
        '/api/alerts/unsubscribe/',
        {
          config: { rateLimit: { max: 60, timeWindow: 60_000 } },
          schema: {
            tags: ['alerts'],
            summary: 'One-click unsubscribe (RFC 8058 List-Unsubscribe-Post) and the confirm button: turns the alert off (no sign-in)',
            querystring: unsubscribeQuery,
          },
        },
        async (request, reply) => {
          const { token } = request.query as { token?: string };
          const done = token ? await alerts.unsubscribe(token) : null;
          reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
          if (!done) return reply.status(400).send(page('Link not valid', 'This unsubscribe link is not valid, or its alert was deleted.'));
          return reply.send(page('Alert turned off', `Your alert for ${done.equipmentType} is turned off. You will get no more messages for it.`));
        },
      );
      scoped.post(
        '/api/alerts/sms/inbound/',
        { schema: { tags: ['alerts'], summary: "Twilio's inbound SMS webhook (signature verified): STOP turns SMS off for the number" } },
        async (request, reply) => {
          const token = ctx.config.TWILIO_AUTH_TOKEN;
          if (!token) throw serviceUnavailable('SMS is not configured.');
          const params = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, string>;
          const signature = request.headers['x-twilio-signature'];
          const url = `${ctx.config.APP_URL}${request.url}`;
          if (typeof signature !== 'string' || !twilio.validateRequest(token, signature, url, params)) {
            throw new HttpError(403, 'Invalid Twilio signature.');
          }
          await alerts.inboundSms(String(params.From ?? ''), String(params.Body ?? ''));
          return reply.type('text/xml').send('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
        },
      );
    });
  };
}
