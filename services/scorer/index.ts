import type { ServiceStarter } from '../shared/service.js';

/**
 * The scorer stage: consumes the `score` queue. Its worker arrives with valuation and deal scoring; until then
 * `score` jobs wait in their queue rather than being completed by a placeholder.
 */
export const startScorer: ServiceStarter = async (ctx) => {
  ctx.logger.warn({ service: 'scorer', queue: 'score' }, 'no score worker yet: score jobs will wait');
  return { name: 'scorer', stop: async () => {} };
};
