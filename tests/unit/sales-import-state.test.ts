/** What the record of sales imports says as one word, and the start banner's line about it. */
import { describe, expect, it } from 'vitest';
import { importBannerLine, importsBlockingTraining, overallImportState } from '../../services/scorer/sales-import-state.js';
import { formatBanner } from '../../services/startup-banner.js';

const row = (status: 'importing' | 'complete' | 'interrupted', attempts = 1, rowsDone = 0) => ({ status, attempts, rowsDone, file: `/data/${status}.csv.gz` });

describe('overallImportState', () => {
  it('importing wins over interrupted, interrupted over complete; none without any import', () => {
    expect(overallImportState([])).toBe('none');
    expect(overallImportState([row('complete'), row('complete')])).toBe('complete');
    expect(overallImportState([row('complete'), row('interrupted')])).toBe('interrupted');
    expect(overallImportState([row('interrupted'), row('importing')])).toBe('importing');
  });

  it('a training waits for every import not complete', () => {
    expect(importsBlockingTraining([row('complete'), row('interrupted'), row('importing')]).map((r) => r.status)).toEqual(['interrupted', 'importing']);
  });
});

describe('the banner line', () => {
  it('says an import is resumed when one was cut off (or is on its second attempt), with the rows already in', () => {
    expect(importBannerLine([row('complete'), row('interrupted', 1, 4000)], true)).toContain('resuming the interrupted import (4000 rows already in)');
    expect(importBannerLine([row('importing', 2, 3000)], true)).toContain('resuming the interrupted import');
    expect(importBannerLine([row('importing', 1, 1000)], true)).toContain('importing on this first start');
    expect(importBannerLine([row('interrupted', 1, 10)], false)).toContain('resumes when the scorer runs');
    expect(importBannerLine([row('complete')], true)).toBeUndefined();
  });

  it('appears in the banner only while an import is unfinished', () => {
    const facts = { appUrl: 'http://localhost:8080', enabledSources: [], firstCrawlNow: [], schedule: '0 * * * *', hasListings: true, crawlerRunning: true };
    const line = importBannerLine([row('interrupted', 1, 2000)], true);
    expect(formatBanner({ ...facts, salesImport: line })).toContain('Sales history: resuming the interrupted import (2000 rows already in)');
    expect(formatBanner(facts)).not.toContain('Sales history');
  });
});
