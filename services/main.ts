/**
 * The launcher: runs every service (or those named in SERVICES) in one process, sharing one
 * database pool and queue connection set. The embedded PostgreSQL, when used, is its child.
 */
import { startApi } from './api/index.js';
import { startCrawler } from './crawler/index.js';
import { startMatcher } from './matcher/index.js';
import { startNotifier } from './notifier/index.js';
import { runServices } from './runner.js';
import { startScheduler } from './scheduler/index.js';
import { startScorer } from './scorer/index.js';
import { loadConfig, type ServiceName } from './shared/config.js';
import type { ServiceStarter } from './shared/service.js';

const ALL: Record<ServiceName, ServiceStarter> = {
  // Workers first, the API last: when it answers, the pipeline behind it is running.
  crawler: startCrawler,
  scorer: startScorer,
  matcher: startMatcher,
  notifier: startNotifier,
  scheduler: startScheduler,
  api: startApi,
};

let selected: ServiceName[];
try {
  selected = loadConfig().SERVICES;
} catch {
  selected = Object.keys(ALL) as ServiceName[]; // runServices reports the bad configuration
}
await runServices(Object.fromEntries(Object.entries(ALL).filter(([name]) => selected.includes(name as ServiceName))));
