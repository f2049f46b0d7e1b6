/**
 * Where a place in the US is, offline: ZIP codes, "City, ST" and states to a latitude and
 * longitude, from the `zipcodes` package's US table (42,555 ZIP codes with their city, state and
 * coordinates, from the federal ZIP code list; no network at run time). A city is the centroid
 * of its ZIP codes, a state the centroid of its ZIP codes (weighted towards where people live: ZIP codes are dense
 * where people are).
 *
 * The rule that matters: never a wrong state. A ZIP code whose state disagrees with the state the
 * source gives is not trusted (typos are more likely than a lot listed in the wrong state); the
 * city, then the state, is tried instead. A city without a state is not guessed (Springfield is
 * in 30 states). Pure apart from loading the table once, lazily: only processes that place
 * something pay for it (about 0.3 s and a few MB).
 */
import { createRequire } from 'node:module';
import { toStateCode } from '../us-states.js';

export type GeoPrecision = 'zip' | 'city' | 'state';
export type GeoPoint = { lat: number; lon: number };
export type Geocoded = GeoPoint & { precision: GeoPrecision };

type ZipRow = { zip: string; latitude: number; longitude: number; city: string; state: string; country: string };

type Tables = {
  zips: Map<string, GeoPoint & { state: string; city: string }>;
  cities: Map<string, GeoPoint>;
  states: Map<string, GeoPoint>;
  byState?: Map<string, string[]>;
};

let tables: Tables | undefined;

/** "St. Louis", "Saint Louis", "ST LOUIS" → one key; "Mc Allen" and "McAllen" too. */
export function cityKey(city: string): string {
  return city
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9 ]+/g, ' ')
    .replace(/\b(SAINT|STE?)\b/g, 'ST')
    .replace(/\b(FORT|FT)\b/g, 'FT')
    .replace(/\b(MOUNT|MT)\b/g, 'MT')
    .replace(/\s+/g, '');
}

/**
 * The median latitude and longitude of a place's ZIP codes: robust to the odd ZIP code filed
 * under a city's name far from it (New York's mean lies on Long Island; its median in Manhattan).
 */
function centroid(points: GeoPoint[]): GeoPoint {
  const median = (values: number[]) => {
    values.sort((a, b) => a - b);
    const mid = values.length >> 1;
    return values.length % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
  };
  // Four decimals (about 10 m): what the table itself holds.
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return { lat: round(median(points.map((p) => p.lat))), lon: round(median(points.map((p) => p.lon))) };
}

function load(): Tables {
  if (tables) return tables;
  const require = createRequire(import.meta.url);
  const path = require.resolve('zipcodes/lib/codes.js');
  const { codes } = require(path) as { codes: Record<string, ZipRow> };
  const zips: Tables['zips'] = new Map();
  const byCity = new Map<string, GeoPoint[]>();
  const byState = new Map<string, GeoPoint[]>();
  for (const row of Object.values(codes)) {
    const lat = Number(row.latitude);
    const lon = Number(row.longitude);
    // 306 rows have no coordinates; military and territory codes are outside the 50 states + DC.
    if (row.country !== 'US' || !Number.isFinite(lat) || !Number.isFinite(lon) || (lat === 0 && lon === 0)) continue;
    if (!toStateCode(row.state)) continue;
    const point = { lat, lon };
    zips.set(row.zip, { ...point, state: row.state, city: row.city });
    const key = `${cityKey(row.city)}|${row.state}`;
    const list = byCity.get(key);
    if (list) list.push(point);
    else byCity.set(key, [point]);
    const inState = byState.get(row.state);
    if (inState) inState.push(point);
    else byState.set(row.state, [point]);
  }
  const cities = new Map([...byCity].map(([k, points]) => [k, centroid(points)]));
  const states = new Map([...byState].map(([k, points]) => [k, centroid(points)]));
  // The package's own copy is not needed any more: let it be collected.
  delete require.cache[path];
  tables = { zips, cities, states };
  return tables;
}

/**
 * Builds the tables now rather than on the first lookup: ~0.7 s of one core, which the first
 * request with `near=` would otherwise wait for (and every request queued behind it). The API
 * calls it before it listens.
 */
export function preloadGazetteer(): void {
  load();
}

/** "50010", "50010-1234", " 50010 " → "50010"; anything else → null. */
export function normalizeZip(value: string | null | undefined): string | null {
  const m = /^\s*(\d{5})(?:-\d{4})?\s*$/.exec(value ?? '');
  return m ? m[1]! : null;
}

/** Every known ZIP code of a state (for seeding benchmark data). */
export function zipsOfState(state: string): string[] {
  const t = load();
  t.byState ??= new Map();
  let zips = t.byState.get(state);
  if (!zips) {
    zips = [...t.zips].filter(([, z]) => z.state === state).map(([zip]) => zip);
    t.byState.set(state, zips);
  }
  return zips;
}

/** A known US ZIP code's place, with its state and city. */
export function lookupZip(zip: string | null | undefined): (GeoPoint & { state: string; city: string }) | null {
  const z = normalizeZip(zip);
  if (!z) return null;
  return load().zips.get(z) ?? null;
}

/**
 * The best place for what a source gives: its ZIP code (when its state agrees with the given
 * state), else its city in its state, else its state's centroid; null when nothing is known or
 * the place is outside the US.
 */
export function geocode(place: { zip?: string | null; city?: string | null; state?: string | null; country?: string | null }): Geocoded | null {
  const country = place.country?.trim().toUpperCase();
  if (country && country !== 'US' && country !== 'USA') return null;
  const state = toStateCode(place.state ?? undefined) ?? null;
  const t = load();
  const zip = lookupZip(place.zip);
  if (zip && (state === null || zip.state === state)) return { lat: zip.lat, lon: zip.lon, precision: 'zip' };
  if (!state) return null;
  const city = place.city?.trim();
  if (city) {
    const c = t.cities.get(`${cityKey(city)}|${state}`);
    if (c) return { ...c, precision: 'city' };
  }
  const s = t.states.get(state);
  return s ? { ...s, precision: 'state' } : null;
}

/** "Ames, IA", "Ames IA", "50010", "Iowa" → a place (what a buyer may type as where they are). */
export function geocodeText(text: string | null | undefined): Geocoded | null {
  const v = (text ?? '').trim().replace(/\s+/g, ' ');
  if (!v) return null;
  if (normalizeZip(v)) return geocode({ zip: v });
  if (toStateCode(v)) return geocode({ state: v });
  // "City, ST", "City ST", "City, State name"
  const m = /^(.+?),?\s+([A-Za-z]{2})$/.exec(v) ?? /^(.+?),\s*([A-Za-z][A-Za-z ]+)$/.exec(v);
  if (m && toStateCode(m[2]!)) return geocode({ city: m[1]!, state: m[2]! });
  return null;
}
