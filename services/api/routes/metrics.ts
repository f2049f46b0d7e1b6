import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../shared/context.js';
import { METRICS_CONTENT_TYPE, metricsAccess, renderMetrics } from '../../shared/metrics.js';

/**
 * `GET /metrics`: Prometheus metrics of this API process (queue depths, sources by status, crawl
 * outcomes, messages sent and failed, listing-index load time). Not public: a bearer token
 * (METRICS_TOKEN) or, without one, loopback clients only. Not in the OpenAPI document.
 */
export function metricsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
      const access = metricsAccess({ token: ctx.config.METRICS_TOKEN, remoteAddress: request.ip, authorization: request.headers.authorization });
      if (access === 'unauthorized') return reply.status(401).send({ detail: 'A valid metrics token is required.' });
      if (access === 'forbidden') return reply.status(403).send({ detail: 'Metrics are served to loopback clients only; set METRICS_TOKEN to scrape from elsewhere.' });
      return reply.header('content-type', METRICS_CONTENT_TYPE).header('cache-control', 'no-store').send(await renderMetrics());
    });
  };
}
