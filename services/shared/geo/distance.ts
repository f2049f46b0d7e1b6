/**
 * Distances between places, as the crow flies, in statute miles. Every distance the product shows,
 * filters by or sorts by is `distanceMiles` (rounded to a tenth of a mile), computed the same way
 * by the listing index, the alert matcher's pure rule and its SQL (`geo_distance_miles`, migration
 * 0035), so the three agree: the tenth absorbs the last-digit differences between JavaScript's and
 * PostgreSQL's trigonometry.
 */
import type { GeoPoint } from './gazetteer.js';

/** The mean radius of the Earth (IUGG), in statute miles. */
export const EARTH_RADIUS_MILES = 3958.7613;

const RAD = Math.PI / 180;

/** Great-circle distance by the haversine formula, unrounded. */
export function haversineMiles(a: GeoPoint, b: GeoPoint): number {
  const dLat = (b.lat - a.lat) * RAD;
  const dLon = (b.lon - a.lon) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The distance the product uses: haversine miles rounded to a tenth (half up). */
export function distanceMiles(a: GeoPoint, b: GeoPoint): number {
  return Math.floor(haversineMiles(a, b) * 10 + 0.5) / 10;
}

/**
 * A latitude/longitude box holding every point within `miles` of `center` (a cheap test before
 * the exact distance). Longitude spans widen towards the poles; near them, or across the
 * antimeridian, the box is every longitude.
 */
export function boundingBox(center: GeoPoint, miles: number): { minLat: number; maxLat: number; minLon: number; maxLon: number } {
  const dLat = (miles / EARTH_RADIUS_MILES) / RAD;
  const minLat = center.lat - dLat;
  const maxLat = center.lat + dLat;
  if (maxLat >= 89 || minLat <= -89) return { minLat, maxLat, minLon: -180, maxLon: 180 };
  const dLon = Math.asin(Math.min(1, Math.sin(miles / EARTH_RADIUS_MILES) / Math.cos(center.lat * RAD))) / RAD;
  const minLon = center.lon - dLon;
  const maxLon = center.lon + dLon;
  if (minLon < -180 || maxLon > 180) return { minLat, maxLat, minLon: -180, maxLon: 180 };
  return { minLat, maxLat, minLon, maxLon };
}
