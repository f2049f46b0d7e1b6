/** Every route plugin of the API, registered in this order by app.ts. Features add theirs here. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../shared/context.js';
import { alertRoutes } from './alerts.js';
import { auctionsRoutes } from './auctions.js';
import { authRoutes } from './auth.js';
import { docsRoutes } from './docs-pages.js';
import { eventRoutes } from './events.js';
import { healthRoutes } from './health.js';
import { subscriptionRoutes } from './subscriptions.js';

export const routePlugins: Array<(ctx: AppContext) => FastifyPluginAsyncZod> = [healthRoutes, auctionsRoutes, authRoutes, subscriptionRoutes, alertRoutes, eventRoutes, docsRoutes];
