import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../shared/context.js';
import { crawlState } from '../../shared/repositories/operations-repository.js';

const crawlStatusResponse = z.object({
  /** Display names of the sources crawled. Empty: nothing will ever be listed until one is enabled. */
  enabled_sources: z.array(z.string()),
  /** Sources are enabled but none has finished a crawl yet: listings are on their way. */
  first_crawl_running: z.boolean(),
  has_listings: z.boolean(),
});

/**
 * `GET /api/crawl-status/`: why the dashboard may be empty on a new installation — no source
 * enabled, or the first crawl still running. Public, like the listings it explains.
 */
export function crawlStatusRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/crawl-status/',
      { schema: { tags: ['auctions'], summary: 'Whether sources are enabled and their first crawl has finished', response: { 200: crawlStatusResponse } } },
      async () => {
        const state = await crawlState(ctx.database.sql);
        return {
          enabled_sources: state.enabledSources,
          first_crawl_running: state.enabledSources.length > 0 && state.finished === 0,
          has_listings: state.listings > 0,
        };
      },
    );
  };
}
