/** Every route plugin of the API, registered in this order by app.ts. Features add theirs here. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../shared/context.js';
import { alertRoutes } from './alerts.js';
import { auctionsRoutes } from './auctions.js';
import { authRoutes } from './auth.js';
import { crawlStatusRoutes } from './crawl-status.js';
import { docsRoutes } from './docs-pages.js';
import { eventRoutes } from './events.js';
import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics.js';
import { subscriptionRoutes } from './subscriptions.js';
import { valuationRoutes } from './valuation.js';
import { watchlistRoutes } from './watchlist.js';

export const routePlugins: Array<(ctx: AppContext) => FastifyPluginAsyncZod> = [healthRoutes, auctionsRoutes, authRoutes, subscriptionRoutes, alertRoutes, watchlistRoutes, valuationRoutes, eventRoutes, docsRoutes, crawlStatusRoutes, metricsRoutes];
