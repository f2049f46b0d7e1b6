import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../shared/context.js';
import { APP_VERSION } from '../../shared/version.js';
import { listingIndexStatus } from '../../listings/listing-index-registry.js';

const healthResponse = z.object({
  /** `starting`: the listing index is still loading (list requests would wait): not ready for traffic yet. */
  status: z.enum(['ok', 'degraded', 'starting']),
  database: z.enum(['ok', 'down']),
  queue: z.enum(['ok', 'down']),
  queue_backend: z.enum(['postgres', 'redis']),
  /** The list route's in-memory index (absent when this process serves no listings). */
  listing_index: z.enum(['loading', 'ready']).optional(),
  version: z.string(),
});

/**
 * `GET /api/health/`: database, queue and listing-index status and the app version; 503 when one
 * is down, or while the listing index loads (a load balancer waits for `status: ok`).
 */
export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/health/',
      {
        schema: {
          tags: ['health'],
          summary: 'Service health',
          response: { 200: healthResponse, 503: healthResponse },
        },
      },
      async (_request, reply) => {
        const [database, queue] = await Promise.all([
          ctx.database.sql`SELECT 1`.then(
            () => 'ok' as const,
            () => 'down' as const,
          ),
          ctx.queues.ping().then(
            () => 'ok' as const,
            () => 'down' as const,
          ),
        ]);
        const up = database === 'ok' && queue === 'ok';
        const index = listingIndexStatus(ctx)?.state;
        const ready = up && index !== 'loading';
        return reply.status(ready ? 200 : 503).send({
          status: !up ? 'degraded' : ready ? 'ok' : 'starting',
          database,
          queue,
          queue_backend: ctx.queues.backend.kind,
          ...(index ? { listing_index: index } : {}),
          version: APP_VERSION,
        });
      },
    );
  };
}
