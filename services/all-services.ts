/**
 * Every service the launcher can run, in start order: workers first, the API last, so that when
 * the API answers, the pipeline behind it is running. Stopped in reverse (the API first).
 */
import { startApi } from './api/index.js';
import { startCrawler } from './crawler/index.js';
import { startMatcher } from './matcher/index.js';
import { startNotifier } from './notifier/index.js';
import { startScheduler } from './scheduler/index.js';
import { startScorer } from './scorer/index.js';
import type { ServiceName } from './shared/config.js';
import type { ServiceStarter } from './shared/service.js';

export const ALL_SERVICES: Record<ServiceName, ServiceStarter> = {
  crawler: startCrawler,
  scorer: startScorer,
  matcher: startMatcher,
  notifier: startNotifier,
  scheduler: startScheduler,
  api: startApi,
};

/** The services named in SERVICES, in start order. */
export function selectServices(names: readonly ServiceName[]): Record<string, ServiceStarter> {
  return Object.fromEntries(Object.entries(ALL_SERVICES).filter(([name]) => names.includes(name as ServiceName)));
}
