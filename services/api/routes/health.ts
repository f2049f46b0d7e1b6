import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../shared/context.js';
import { APP_VERSION } from '../../shared/version.js';

const healthResponse = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.enum(['ok', 'down']),
  queue: z.enum(['ok', 'down']),
  queue_backend: z.enum(['postgres', 'redis']),
  version: z.string(),
});

/** `GET /api/health/`: database and queue status and the app version; 503 when one is down. */
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
        const ok = database === 'ok' && queue === 'ok';
        return reply.status(ok ? 200 : 503).send({
          status: ok ? 'ok' : 'degraded',
          database,
          queue,
          queue_backend: ctx.queues.backend.kind,
          version: APP_VERSION,
        });
      },
    );
  };
}
