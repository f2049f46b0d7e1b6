/**
 * `/api/watchlist/*` (issue 31, PRODUCT.md "Watchlist"): the signed-in user's watched lots —
 * list, watch, change the reminder, stop watching — and the signed unsubscribe link of watchlist
 * messages (a confirm page on GET; RFC 8058 one-click and the button POST).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { escapeHtml } from '../../alerts/alert-messages.js';
import { listingCardSchema } from '../../listings/listing-schemas.js';
import type { AppContext } from '../../shared/context.js';
import { WatchlistService } from '../../watchlist/watchlist-service.js';
import { requireUser, signedInUser } from '../plugins/auth.js';

const numberOrText = z.union([z.number(), z.string().max(32, 'Enter a number.')], { error: 'Enter a number.' });

const watchBody = z.object({
  listing_id: numberOrText.nullish().describe('The listing to watch (POST).'),
  remind_before_minutes: numberOrText
    .nullish()
    .describe('Minutes before the close the reminder goes out: 15, 60 (default), 180 or 1440.'),
  max_price: numberOrText
    .nullish()
    .describe("Premium: a notice when the price passes this (USD). Null or empty: none. Omitted on POST: the lot's Good limit (follow_good_limit)."),
  follow_good_limit: z
    .boolean({ error: 'Must be true or false.' })
    .nullish()
    .describe("Premium: \"remind me while the bid is under my Good price\": the maximum is the lot's Good bid limit and follows it when the lot is rescored. The default on POST without max_price; false or a max_price: the buyer's own."),
  delivery_method: z.enum(['email', 'sms'], { error: 'Choose email or sms.' }).nullish().describe('SMS is Premium and needs a phone number on the profile.'),
  notify: z.boolean({ error: 'Must be true or false.' }).nullish().describe('PATCH: false stops all messages for the lot (as the unsubscribe link does).'),
});

const isoOrNull = z.string().nullable();

const watchItem = listingCardSchema.extend({
  watch_id: z.number().int(),
  listing_id: z.number().int(),
  listing_status: z.enum(['open', 'closed', 'sold', 'withdrawn']),
  remind_before_minutes: z.number().int(),
  max_price: z.number().nullable(),
  max_price_follows_good: z.boolean().describe("The maximum is the lot's Good bid limit, moved when the lot is rescored."),
  delivery_method: z.enum(['email', 'sms']),
  notify: z.boolean(),
  watched_at: z.string(),
  fair_value: z.number().nullable().describe('Our fair value; for a closed lot, the one shown while it was open.'),
  final_price: z.number().nullable().describe('A sold lot’s final price; null while open and for lots closed unsold or withdrawn.'),
  outcome: z.string().nullable().describe('How it ended, in words; null while open.'),
  next_notice_at: isoOrNull,
  notices: z.object({
    reminder_sent_at: isoOrNull,
    price_notice_sent_at: isoOrNull,
    closed_notice_sent_at: isoOrNull,
    gone_notice_sent_at: isoOrNull,
    last_error: z.string().nullable().describe('Why the last notice was not sent (daily limit, suppressed address, STOP).'),
  }),
});

/** The unsubscribe link's query string: open, as the alerts' (mail clients add parameters to links); only the token is read. */
const unsubscribeQuery = z.looseObject({ token: z.string().max(200).optional() });

const listingParams = z.object({ listing_id: z.coerce.number({ error: 'Not a valid listing id.' }).int().positive().max(2_147_483_647) });
const detail = z.object({ detail: z.string() });
const security = [{ bearer: [] }];
const tags = ['watchlist'];

function page(title: string, message: string, form?: { action: string; button: string }): string {
  const confirm = form
    ? `<form method="post" action="${escapeHtml(form.action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit" style="font-size:1rem;padding:.5rem 1rem">${escapeHtml(form.button)}</button></form>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · Deal Radar</title></head><body style="font-family:Arial,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${confirm}<p><a href="/watchlist">Your watchlist</a></p></body></html>`;
}

const BAD_LINK = 'This link is not valid, or the lot is no longer on your watchlist.';

export function watchlistRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const watchlist = new WatchlistService(ctx);
  const auth = requireUser(ctx);

  return async (app) => {
    app.get(
      '/api/watchlist/',
      {
        preValidation: auth,
        schema: { tags, summary: "The user's watched lots: open ones by time left, then closed ones with how they ended", security, response: { 200: z.object({ data: z.object({ items: z.array(watchItem) }) }) } },
      },
      async (request) => ({ data: { items: await watchlist.list(signedInUser(request).id) } }),
    );

    app.post(
      '/api/watchlist/',
      {
        preValidation: auth,
        schema: {
          tags,
          summary: 'Watch a lot (free: up to 20; 409 when already watched, 404 unknown listing)',
          security,
          body: watchBody,
          response: { 201: z.object({ data: watchItem }), 403: detail, 404: detail, 409: detail },
        },
      },
      async (request, reply) => reply.status(201).send({ data: await watchlist.create(signedInUser(request).id, request.body) }),
    );

    app.patch(
      '/api/watchlist/:listing_id/',
      {
        preValidation: auth,
        schema: { tags, summary: 'Change a watched lot’s reminder, maximum or delivery', security, params: listingParams, body: watchBody, response: { 200: z.object({ data: watchItem }), 403: detail, 404: detail } },
      },
      async (request) => ({ data: await watchlist.update(signedInUser(request).id, request.params.listing_id, request.body) }),
    );

    app.delete(
      '/api/watchlist/:listing_id/',
      { preValidation: auth, schema: { tags, summary: 'Stop watching a lot', security, params: listingParams, response: { 204: z.null(), 404: detail } } },
      async (request, reply) => {
        await watchlist.remove(signedInUser(request).id, request.params.listing_id);
        return reply.status(204).send(null);
      },
    );

    // A GET never changes state (mail scanners follow links): it asks to confirm.
    app.get(
      '/api/watchlist/unsubscribe/',
      {
        config: { rateLimit: { max: 60, timeWindow: 60_000 } },
        schema: { tags, summary: 'The unsubscribe link of watchlist messages: a page asking to confirm (changes nothing)', querystring: unsubscribeQuery },
      },
      async (request, reply) => {
        const token = request.query.token ?? '';
        const found = token ? await watchlist.unsubscribeTarget(token) : null;
        reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
        if (!found) return reply.status(400).send(page('Link not valid', BAD_LINK));
        if (!found.notify) return reply.send(page('Messages already off', `You get no more messages about “${found.title}”.`));
        return reply.send(
          page('Stop messages about this lot?', `You will get no more reminders or notices about “${found.title}”. It stays on your watchlist.`, {
            action: `/api/watchlist/unsubscribe/?token=${encodeURIComponent(token)}`,
            button: 'Stop these messages',
          }),
        );
      },
    );

    await app.register(async (scoped) => {
      // One-click unsubscribe posts `List-Unsubscribe=One-Click` form-encoded or as multipart (RFC 8058).
      scoped.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });
      scoped.addContentTypeParser('multipart/form-data', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, _body, done) => done(null, {}));
      scoped.post(
        '/api/watchlist/unsubscribe/',
        {
          config: { rateLimit: { max: 60, timeWindow: 60_000 } },
          schema: { tags, summary: 'One-click unsubscribe (RFC 8058) and the confirm button: no more messages for the watched lot (no sign-in)', querystring: unsubscribeQuery },
        },
        async (request, reply) => {
          const { token } = request.query as { token?: string };
          const done = token ? await watchlist.unsubscribe(token) : null;
          reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
          if (!done) return reply.status(400).send(page('Link not valid', BAD_LINK));
          return reply.send(page('Messages stopped', `You will get no more messages about “${done.title}”. It stays on your watchlist.`));
        },
      );
    });
  };
}
