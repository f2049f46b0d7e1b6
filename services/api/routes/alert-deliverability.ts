/**
 * Mail that reaches the inbox (issue #22), registered by the alerts routes:
 *   - `POST /api/webhooks/sendgrid/events/`: SendGrid's signed event webhook (ECDSA over the raw
 *     body); bounces and spam reports suppress the address;
 *   - `POST /api/alerts/sms/status/`: Twilio's status callback (X-Twilio-Signature); failed or
 *     undelivered SMS are recorded as failed;
 *   - `GET /api/alerts/suppressions/` and `DELETE /api/alerts/suppressions/email/`: the signed-in
 *     user's suppressed address, for the account page, and re-enabling it.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import twilio from 'twilio';
import { z } from 'zod';
import { DeliverabilityService } from '../../alerts/deliverability.js';
import type { AppContext } from '../../shared/context.js';
import { HttpError, serviceUnavailable } from '../../shared/errors.js';
import { requireUser, signedInUser } from '../plugins/auth.js';

const security = [{ bearer: [] }];

const suppressionStatus = z.object({
  email: z.object({ address: z.string(), suppressed: z.boolean(), reason: z.string().nullable(), detail: z.string().nullable(), since: z.string().nullable() }),
  sms: z.object({ phone: z.string().nullable(), opted_out: z.boolean(), last_failure: z.string().nullable(), last_failure_at: z.string().nullable() }),
});

export function alertDeliverabilityRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const service = new DeliverabilityService(ctx);
  const auth = requireUser(ctx);

  return async (app) => {
    app.get(
      '/api/alerts/suppressions/',
      {
        preValidation: auth,
        schema: {
          tags: ['alerts'],
          summary: "Whether the user's e-mail address is suppressed (bounced, spam report) and the SMS number's state",
          security,
          response: { 200: z.object({ data: suppressionStatus }) },
        },
      },
      async (request) => ({ data: await service.status(signedInUser(request).id) }),
    );

    app.delete(
      '/api/alerts/suppressions/email/',
      {
        preValidation: auth,
        schema: { tags: ['alerts'], summary: "Re-enable the user's suppressed e-mail address", security, response: { 200: z.object({ data: suppressionStatus }) } },
      },
      async (request) => ({ data: await service.reenableEmail(signedInUser(request).id) }),
    );

    // SendGrid signs the exact bytes it posts: this scope keeps JSON bodies raw.
    await app.register(async (scoped) => {
      scoped.removeContentTypeParser('application/json');
      scoped.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 4 * 1024 * 1024 }, (_req, body, done) => done(null, body));
      scoped.post(
        '/api/webhooks/sendgrid/events/',
        {
          config: { rateLimit: false },
          schema: { tags: ['alerts'], summary: "SendGrid's signed event webhook: bounces and spam reports suppress the address" },
        },
        async (request, reply) => {
          const raw = typeof request.body === 'string' ? request.body : '';
          const header = (name: string) => {
            const v = request.headers[name];
            return typeof v === 'string' ? v : undefined;
          };
          const result = await service.sendGridEvents(raw, header('x-twilio-email-event-webhook-signature'), header('x-twilio-email-event-webhook-timestamp'));
          return reply.send({ data: result });
        },
      );
    });

    // Twilio posts form-encoded fields and signs URL + sorted fields.
    await app.register(async (scoped) => {
      scoped.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });
      scoped.post(
        '/api/alerts/sms/status/',
        { schema: { tags: ['alerts'], summary: "Twilio's SMS status callback (signature verified): failed and undelivered SMS are recorded" } },
        async (request, reply) => {
          const token = ctx.config.TWILIO_AUTH_TOKEN;
          if (!token) throw serviceUnavailable('SMS is not configured.');
          const params = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, string>;
          const signature = request.headers['x-twilio-signature'];
          if (typeof signature !== 'string' || !twilio.validateRequest(token, signature, `${ctx.config.APP_URL}${request.url}`, params)) {
            throw new HttpError(403, 'Invalid Twilio signature.');
          }
          await service.smsStatus(params);
          return reply.status(204).send();
        },
      );
    });
  };
}
