import type { ServiceStarter } from '../shared/service.js';

/**
 * The crawler stage: consumes the `crawl` queue. Its worker arrives with the crawl pipeline; until then
 * `crawl` jobs wait in their queue rather than being completed by a placeholder.
 */
export const startCrawler: ServiceStarter = async (ctx) => {
  ctx.logger.warn({ service: 'crawler', queue: 'crawl' }, 'no crawl worker yet: crawl jobs will wait');
  return { name: 'crawler', stop: async () => {} };
};
