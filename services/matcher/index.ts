import type { ServiceStarter } from '../shared/service.js';

/**
 * The matcher stage: consumes the `match` queue. Its worker arrives with alerts; until then
 * `match` jobs wait in their queue rather than being completed by a placeholder.
 */
export const startMatcher: ServiceStarter = async (ctx) => {
  ctx.logger.warn({ service: 'matcher', queue: 'match' }, 'no match worker yet: match jobs will wait');
  return { name: 'matcher', stop: async () => {} };
};
