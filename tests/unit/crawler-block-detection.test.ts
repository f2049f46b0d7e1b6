import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectBlock } from '../../services/crawler/fetchers/block-detection.js';

const sites = path.resolve(process.env.SHARED_DIR ?? '../shared', 'fixtures/sites');

describe('detectBlock', () => {
  it('recognises the real Cloudflare challenge page, with 403 or 200', () => {
    const body = readFileSync(path.join(sites, 'tractorhouse/blocked-cloudflare-challenge_list-tractors_roshtarg_page.html'), 'utf8');
    expect(detectBlock({ status: 403, body })).toMatchObject({ vendor: 'Cloudflare' });
    expect(detectBlock({ status: 200, body })).toMatchObject({ vendor: 'Cloudflare' });
  });

  it('recognises other vendors and a bare 403', () => {
    expect(detectBlock({ status: 200, body: '<html><script src="/_Incapsula_Resource?SWJIYLWA=1"></script></html>' })?.vendor).toBe('Incapsula');
    expect(detectBlock({ status: 403, body: '<html><head><title>Access Denied</title></head><body>Reference #18.abc</body></html>' })?.vendor).toBe('Akamai');
    expect(detectBlock({ status: 200, body: '<div id="px-captcha"></div>' })?.vendor).toBe('PerimeterX');
    expect(detectBlock({ status: 403, body: 'Forbidden' })).toMatchObject({ reason: 'HTTP 403 Forbidden' });
  });

  it('does not flag any real listing page or API response as blocked', () => {
    const files = readdirSync(sites, { recursive: true, withFileTypes: true })
      .filter((f) => f.isFile() && /\.(html|json)$/.test(f.name) && !f.parentPath.includes('tractorhouse'))
      .map((f) => path.join(f.parentPath, f.name));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) expect(detectBlock({ status: 200, body: readFileSync(file, 'utf8') }), file).toBeNull();
  });
});
