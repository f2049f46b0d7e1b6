import { describe, expect, it } from 'vitest';
import type { TrainingSale } from '../../services/valuation/features.js';
import { fitTitleWords, titleWordColumns, TITLE_WORD_SPECS } from '../../services/valuation/title-words.js';

const lot = (title: string, price: number, over: Partial<TrainingSale> = {}): TrainingSale => ({
  categoryId: 11,
  make: null,
  model: null,
  modelFamily: null,
  year: null,
  hours: null,
  condition: null,
  state: 'CA',
  saleChannel: 'online auction',
  soldAt: new Date('2025-01-01T00:00:00Z'),
  attributes: { source: 'westauction' },
  title,
  price,
  ...over,
});

const column = (name: string) => TITLE_WORD_SPECS.findIndex((s) => s.name === name);

describe('nearest titles', () => {
  // "steel" and "trailer" alone cover cheap and dear lots; the whole title finds its like
  const training = [
    lot('3-Stall Stainless Steel Restroom Trailer', 9000),
    lot('3-Stall Galvanized Steel Restroom Trailer', 8000),
    lot('Steel Pipe Trailer', 60),
    lot('Steel Pipe Trailer (Contents Not Included)', 40),
    lot('Utility Trailer', 500),
    lot('Utility Trailer', 700),
    lot('Caterpillar 950F Wheel Loader', 40_000, { categoryId: 3, attributes: {} }),
  ];
  const tw = fitTitleWords(training);

  it('values a title from the lots that share most of its words, of its own type', () => {
    const [restroom, pipe, loader] = [lot('4-Stall Stainless Steel Restroom Trailer', 0), lot('Irrigation Pipe Trailer', 0), lot('Wheel Loader', 0, { categoryId: 3 })];
    const cols = titleWordColumns([restroom, pipe, loader], tw);
    const price = cols[column('title_nearest_price')]!;
    expect(Math.expm1(price[0]!)).toBeGreaterThan(5000);
    expect(Math.expm1(price[1]!)).toBeLessThan(200);
    // Fast Iron's made-up titles are not neighbours: nothing of type 3 to compare with
    expect(price[2]).toBeNaN();
    expect(cols[column('title_nearest_similarity')]![0]).toBeGreaterThan(0.5);
  });

  it('never lets a training lot see its own price (out of fold)', () => {
    const alone = [lot('Hydrogen Refueling Truck Module', 90_000), ...training];
    const cols = titleWordColumns(alone, fitTitleWords(alone), alone);
    // its only like is itself, so out of fold it has no neighbour at all
    expect(cols[column('title_nearest_price')]![0]).toBeNaN();
  });
});
