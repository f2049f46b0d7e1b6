import { describe, expect, it } from 'vitest';
import { categoryIdFor } from '../../services/shared/lots/category.js';
import { canonicalMake, modelFamily, parseTitle } from '../../services/shared/lots/title-parser.js';

const now = new Date('2026-11-21T00:00:00Z');

describe('parseTitle', () => {
  it.each([
    ['2016 CAT 320FL Excavator', { year: 2016, make: 'Caterpillar', model: '320FL', categoryId: 1 }],
    ['Caterpillar D4B Dozer', { year: null, make: 'Caterpillar', model: 'D4B', categoryId: 2 }],
    ['1996 John Deere 870 Tractor', { year: 1996, make: 'John Deere', model: '870', categoryId: 11 }],
    ['John Deere 8360 RT Tractor', { year: null, make: 'John Deere', model: '8360 RT', categoryId: 11 }],
    ['2019 Bobcat E145 Crawler Excavator With Extra 1.38Y Bobcat Bucket', { year: 2019, make: 'Bobcat', model: 'E145', categoryId: 1 }],
    ['Caterpillar 12G Motor Grader', { year: null, make: 'Caterpillar', model: '12G', categoryId: 10 }],
    ['Volvo MCT125C Skid Steer Track Loader', { year: null, make: 'Volvo', model: 'MCT125C', categoryId: 5 }],
    ['1986 Peterbilt 359 Dump Truck (DEF Converted) (Trailer NOT Included)', { year: 1986, make: 'Peterbilt', model: '359', categoryId: 7 }],
    ['2002 Ford F750 Super Duty Utility Truck With Stetco 920T Crane And Dum', { year: 2002, make: 'Ford', model: 'F750', categoryId: 11 }],
    ['Generac 20KW  Diesel  2000 Series Power System Generator', { year: null, make: 'Generac', model: '20KW', categoryId: 8 }],
    ['2013 Komatsu PC200LC-8 Hydraulic Excavator', { year: 2013, make: 'Komatsu', model: 'PC200LC-8', categoryId: 1 }],
    ['2008 Case 580 Super M Backhoe Loader', { year: 2008, make: 'Case', model: '580', categoryId: 4 }],
    ['2015 Dynapac CA2500D Vibratory Smooth Drum Roller', { year: 2015, make: 'Dynapac', model: 'CA2500D', categoryId: 9 }],
    ['2004 Grove RT530E Rough Terrain Crane', { year: 2004, make: 'Grove', model: 'RT530E', categoryId: 6 }],
    ['2016 Lamar 20’ Tilt Dump Trailer', { year: 2016, make: null, model: null, categoryId: 11 }],
    ['Lot of Approx. 150 Stacking Chairs', { year: null, make: null, model: null, categoryId: 11 }],
    ['2031 CAT 950 Wheel Loader', { year: null, make: 'Caterpillar', model: '950', categoryId: 3 }],
  ])('%s', (title, expected) => {
    expect(parseTitle(title, now)).toEqual(expected);
  });
});

describe('makes, families and categories', () => {
  it('canonicalises make spellings and refuses placeholders', () => {
    expect(canonicalMake('CAT')).toBe('Caterpillar');
    expect(canonicalMake(' deere ')).toBe('John Deere');
    expect(canonicalMake('Unknown')).toBeNull();
    expect(canonicalMake('Snake River')).toBe('Snake River');
  });

  it('derives the model family comparable sales group by', () => {
    expect(modelFamily('320FL')).toBe('320');
    expect(modelFamily('D6R')).toBe('D6');
    expect(modelFamily('950 GC')).toBe('950');
    expect(modelFamily('PC200LC-8')).toBe('PC200');
    expect(modelFamily('Super M')).toBeNull();
  });

  it('prefers the source category label, then the title', () => {
    expect(categoryIdFor('Wheel Loaders', '2004 521D')).toBe(3);
    expect(categoryIdFor('Furniture', '2004 CAT 950 Wheel Loader')).toBe(3);
    expect(categoryIdFor('Excavator Bucket')).toBe(11);
  });
});

describe('parseTitle: named models, early years, ratings (2026-11-21)', () => {
  it('reads a model named by words before its designation, after a known or an unknown make', () => {
    expect(parseTitle('2015 Freightliner Cascadia 125 Day Cab', now)).toMatchObject({ year: 2015, make: 'Freightliner', model: 'Cascadia 125' });
    expect(parseTitle('Brillion Pulvi Mulcher 20 Ft', now)).toMatchObject({ make: 'Brillion', model: 'Pulvi Mulcher 20' });
    // A designation first still wins; a drive code or a rating is never the designation.
    expect(parseTitle('2012 Peterbilt 388 Truck Tractor', now)).toMatchObject({ make: 'Peterbilt', model: '388' });
    expect(parseTitle('2008 Chevrolet Tahoe 4x4', now)).toMatchObject({ make: 'Chevrolet', model: null });
    expect(parseTitle('Sukup Centrifugal 240V Fan', now)).toMatchObject({ make: 'Sukup', model: null });
  });

  it('reads a year before 1930 only when a known make follows', () => {
    expect(parseTitle('1925 Farmall Regular Tractor', now)).toMatchObject({ year: 1925, make: 'Farmall' });
    expect(parseTitle('1900 Gallon Poly Tank', now)).toMatchObject({ year: null, make: null });
  });
});
