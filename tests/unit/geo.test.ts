import { describe, expect, it } from 'vitest';
import { boundingBox, distanceMiles, haversineMiles } from '../../services/shared/geo/distance.js';
import { cityKey, geocode, geocodeText, lookupZip, normalizeZip } from '../../services/shared/geo/gazetteer.js';
import { placeListing } from '../../services/shared/lots/normalize-listing.js';

describe('geocode', () => {
  it('places a ZIP code (ZIP+4 too) at its own coordinates', () => {
    expect(geocode({ zip: '50010' })).toEqual({ lat: 42.0379, lon: -93.6003, precision: 'zip' });
    expect(geocode({ zip: '50010-1234', city: 'Ames', state: 'IA' })).toEqual({ lat: 42.0379, lon: -93.6003, precision: 'zip' });
    expect(lookupZip('90210')).toMatchObject({ state: 'CA', city: 'Beverly Hills' });
  });

  it('places "City, ST" at the city, whatever the spelling of Saint, Fort or Mc', () => {
    const stLouis = geocode({ city: 'St. Louis', state: 'MO' })!;
    expect(stLouis.precision).toBe('city');
    expect(geocode({ city: 'Saint Louis', state: 'Missouri' })).toEqual(stLouis);
    expect(distanceMiles(stLouis, { lat: 38.627, lon: -90.1994 })).toBeLessThan(10);
    expect(geocode({ city: 'Mc Allen', state: 'TX' })).toEqual(geocode({ city: 'McAllen', state: 'tx' }));
    expect(cityKey('Fort Worth')).toBe(cityKey('Ft. Worth'));
    const houston = geocode({ city: 'Houston', state: 'TX' })!;
    expect(distanceMiles(houston, { lat: 29.7604, lon: -95.3698 })).toBeLessThan(15);
  });

  it('falls back to the state centroid when the city is unknown, or only the state is given', () => {
    const texas = geocode({ state: 'TX' })!;
    expect(texas.precision).toBe('state');
    expect(geocode({ city: 'Nowhereville', state: 'Texas' })).toEqual(texas);
    // The centroid is inside the state, near its middle.
    expect(texas.lat).toBeGreaterThan(29);
    expect(texas.lat).toBeLessThan(34);
    expect(texas.lon).toBeGreaterThan(-100);
    expect(texas.lon).toBeLessThan(-94);
  });

  it('is null for what places nothing: no state, unknown ZIP, outside the US', () => {
    expect(geocode({})).toBeNull();
    expect(geocode({ city: 'Springfield' })).toBeNull();
    expect(geocode({ zip: '00000' })).toBeNull();
    expect(geocode({ zip: 'abcde', state: 'ZZ' })).toBeNull();
    expect(geocode({ city: 'Toronto', state: 'ON', country: 'CA' })).toBeNull();
    expect(geocode({ zip: '50010', country: 'CA' })).toBeNull();
  });

  it('never places a lot in a state other than the one its source gives', () => {
    // 50010 is Ames, Iowa: with Texas given, the ZIP code is not trusted.
    const got = geocode({ zip: '50010', city: 'Houston', state: 'TX' })!;
    expect(got.precision).toBe('city');
    expect(got).toEqual(geocode({ city: 'Houston', state: 'TX' }));
    expect(geocode({ zip: '50010', state: 'TX' })).toEqual(geocode({ state: 'TX' }));
    // Every ZIP code of a sample lands in its own state's box, never another state's centroid.
    for (const [zip, state] of [['10001', 'NY'], ['73301', 'TX'], ['99501', 'AK'], ['96813', 'HI'], ['33101', 'FL']] as const) {
      expect(lookupZip(zip)?.state).toBe(state);
      expect(geocode({ zip, state })?.precision).toBe('zip');
    }
  });

  it('reads what a buyer types: a ZIP code, "City, ST", "City ST", a state', () => {
    expect(geocodeText(' 50010 ')).toEqual(geocode({ zip: '50010' }));
    expect(geocodeText('Des Moines, IA')).toEqual(geocode({ city: 'Des Moines', state: 'IA' }));
    expect(geocodeText('Des Moines IA')).toEqual(geocode({ city: 'Des Moines', state: 'IA' }));
    expect(geocodeText('Saint Louis, Missouri')?.precision).toBe('city');
    expect(geocodeText('Iowa')).toEqual(geocode({ state: 'IA' }));
    expect(geocodeText('Atlantis')).toBeNull();
    expect(normalizeZip('1234')).toBeNull();
  });
});

describe('distances', () => {
  // Published great-circle distances between downtowns, within 1.5% or 10 miles (a city is the
  // median of its ZIP codes, a few miles from its downtown in a sprawling one).
  const pairs: Array<[string, string, number]> = [
    ['New York, NY', 'Los Angeles, CA', 2445],
    ['New York, NY', 'Chicago, IL', 712],
    ['Dallas, TX', 'Houston, TX', 225],
    ['Denver, CO', 'Salt Lake City, UT', 371],
    ['Seattle, WA', 'Miami, FL', 2734],
  ];
  it.each(pairs)('%s to %s is about %i miles', (a, b, miles) => {
    const d = distanceMiles(geocodeText(a)!, geocodeText(b)!);
    expect(Math.abs(d - miles)).toBeLessThan(Math.max(10, 0.015 * miles));
  });

  it('is exact on known points: a degree of latitude, and a quarter of the equator', () => {
    expect(haversineMiles({ lat: 0, lon: 0 }, { lat: 1, lon: 0 })).toBeCloseTo(69.09, 1);
    expect(haversineMiles({ lat: 0, lon: 0 }, { lat: 0, lon: 90 })).toBeCloseTo((Math.PI / 2) * 3958.7613, 6);
    expect(distanceMiles({ lat: 40, lon: -90 }, { lat: 40, lon: -90 })).toBe(0);
    // rounded to a tenth, half up
    expect(distanceMiles({ lat: 0, lon: 0 }, { lat: 1, lon: 0 })).toBe(69.1);
  });

  it('a bounding box holds every point within its radius', () => {
    const center = { lat: 41.6, lon: -93.6 };
    const box = boundingBox(center, 300);
    for (let i = 0; i < 2000; i++) {
      const p = { lat: center.lat + (Math.random() - 0.5) * 12, lon: center.lon + (Math.random() - 0.5) * 16 };
      if (haversineMiles(center, p) <= 300) {
        expect(p.lat >= box.minLat && p.lat <= box.maxLat && p.lon >= box.minLon && p.lon <= box.maxLon).toBe(true);
      }
    }
  });
});

describe('placeListing', () => {
  it('stores the place and its precision, or none', () => {
    expect(placeListing({ zip: null, city: 'Ames', state: 'IA', country: 'US' })).toMatchObject({ geoPrecision: 'city' });
    expect(placeListing({ zip: null, city: null, state: null, country: 'US' })).toEqual({ lat: null, lon: null, geoPrecision: 'none' });
  });
});
