import { describe, expect, it } from 'vitest';
import { isNumericId, listingSlug, slugify } from '../../services/shared/slug.js';

describe('slugs', () => {
  it('slugifies titles to bounded ASCII', () => {
    expect(slugify('2016 CAT 320FL Excavator!')).toBe('2016-cat-320fl-excavator');
    expect(slugify('Pelle à chenilles — Komatsu')).toBe('pelle-a-chenilles-komatsu');
    expect(slugify('???')).toBe('lot');
    expect(slugify('x'.repeat(500)).length).toBeLessThanOrEqual(60);
  });

  it('is stable per (source, external id), distinct across lots, and never all digits', () => {
    const a = listingSlug('2016 CAT 320FL', 'demo', '123');
    expect(listingSlug('2016 CAT 320FL', 'demo', '123')).toBe(a);
    expect(listingSlug('2016 CAT 320FL', 'demo', '124')).not.toBe(a);
    expect(listingSlug('2016 CAT 320FL', 'gsa', '123')).not.toBe(a);
    expect(isNumericId(listingSlug('1234', 'demo', '1'))).toBe(false);
    expect(isNumericId('1234')).toBe(true);
  });
});
