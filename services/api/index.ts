import type { ServiceStarter } from '../shared/service.js';
import { preloadGazetteer } from '../shared/geo/gazetteer.js';
import { buildApp } from './app.js';

/** The HTTP API (and the built web app) on HOST:PORT. */
export const startApi: ServiceStarter = async (ctx) => {
  const app = await buildApp(ctx);
  // A buyer's ZIP is looked up on the request path: the first `near=` must not build the tables.
  preloadGazetteer();
  await app.listen({ host: ctx.config.HOST, port: ctx.config.PORT });
  return {
    name: 'api',
    // Stops accepting connections and waits for in-flight requests.
    stop: () => app.close(),
  };
};
