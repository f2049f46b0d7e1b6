/** The first-run banner of `npm start`: address, sources and their first crawl, no-listings guidance. */
import { describe, expect, it } from 'vitest';
import { formatBanner, type BannerFacts } from '../../services/startup-banner.js';

const facts: BannerFacts = {
  appUrl: 'http://localhost:8080',
  enabledSources: ['gsaauctions', 'purplewave'],
  firstCrawlNow: ['gsaauctions'],
  schedule: '0 * * * *',
  hasListings: false,
  crawlerRunning: true,
};

describe('formatBanner', () => {
  it('on a first start: the address, each source and when it is first crawled, guidance toward the demo', () => {
    const text = formatBanner(facts);
    expect(text).toContain('Deal Radar is running: http://localhost:8080');
    expect(text).toContain('Source gsaauctions: first crawl now, then on schedule "0 * * * *"');
    expect(text).toContain('Source purplewave: crawled on schedule "0 * * * *"');
    expect(text).toContain('No listings yet: the first crawl needs the internet');
    expect(text).toContain('`npm run demo`');
    expect(text.split('\n').length).toBeLessThanOrEqual(10);
  });

  it('says when no source is enabled, and drops the guidance once listings exist', () => {
    expect(formatBanner({ ...facts, enabledSources: [], firstCrawlNow: [] })).toContain('Sources: none enabled (set CRAWL_SOURCES');
    const later = formatBanner({ ...facts, hasListings: true, firstCrawlNow: [] });
    expect(later).not.toContain('No listings yet');
    expect(later).not.toContain('first crawl now');
  });
});
