import type { ServiceStarter } from '../shared/service.js';

/**
 * The notifier stage: consumes the `notify` queue. Its worker arrives with e-mail delivery (accounts) and alerts; until then
 * `notify` jobs wait in their queue rather than being completed by a placeholder.
 */
export const startNotifier: ServiceStarter = async (ctx) => {
  ctx.logger.warn({ service: 'notifier', queue: 'notify' }, 'no notify worker yet: notify jobs will wait');
  return { name: 'notifier', stop: async () => {} };
};
