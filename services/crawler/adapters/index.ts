/**
 * Every source adapter the product knows, by `sources.name`. A real-site adapter is added to
 * ADAPTERS; configuration (`CRAWL_SOURCES`) decides which are enabled.
 */
import type { Config } from '../../shared/config.js';
import type { SourceAdapter } from '../adapter.js';
import type { SourceRegistration } from '../../shared/repositories/sources-repository.js';
import { bidSpotterAdapter } from './bidspotter.js';
import { demoAdapter } from './demo-adapter.js';
import { govDealsAdapter } from './govdeals.js';
import { gsaAuctionsAdapter } from './gsaauctions.js';
import { municibidAdapter } from './municibid.js';
import { publicSurplusAdapter } from './publicsurplus.js';
import { purpleWaveAdapter } from './purplewave.js';
import { rbAuctionAdapter } from './rbauction.js';
import { sierraAuctionAdapter } from './sierraauction.js';
import { westAuctionAdapter } from './westauction.js';

export const ADAPTERS: SourceAdapter[] = [demoAdapter, gsaAuctionsAdapter, govDealsAdapter, purpleWaveAdapter, municibidAdapter, westAuctionAdapter, publicSurplusAdapter, bidSpotterAdapter, rbAuctionAdapter, sierraAuctionAdapter];

export type AdapterRegistry = ReadonlyMap<string, SourceAdapter>;

export function createRegistry(adapters: SourceAdapter[] = ADAPTERS): AdapterRegistry {
  return new Map(adapters.map((a) => [a.name, a]));
}

/** The `sources` row of each adapter under this configuration. */
export function sourceRegistrations(registry: AdapterRegistry, config: Config): SourceRegistration[] {
  return [...registry.values()].map((adapter) => {
    const listed = config.CRAWL_SOURCES.includes(adapter.name);
    let baseUrl = '';
    try {
      baseUrl = adapter.baseUrl(config);
    } catch {
      baseUrl = '';
    }
    const disabledReason = adapter.disabledReason ?? (baseUrl ? null : 'not configured (no base URL)');
    return {
      name: adapter.name,
      displayName: adapter.displayName,
      baseUrl,
      accessKind: adapter.accessKind,
      isDemo: adapter.isDemo ?? false,
      enabled: listed && !disabledReason,
      disabledReason: disabledReason ?? (listed ? null : 'not listed in CRAWL_SOURCES'),
    };
  });
}
