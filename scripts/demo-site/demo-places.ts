/**
 * Real US cities for the demo's lots: the Fast Iron sale records give only a state, so each demo
 * lot gets one of its state's cities (the same for a record every time), and the product places
 * it by city as it would a real source's lot.
 */
import { toStateCode } from '../../services/shared/us-states.js';

const CITIES: Record<string, string[]> = {
  AL: ['Birmingham', 'Montgomery', 'Mobile'], AK: ['Anchorage', 'Fairbanks'], AZ: ['Phoenix', 'Tucson', 'Flagstaff'], AR: ['Little Rock', 'Fort Smith'],
  CA: ['Sacramento', 'Fresno', 'Bakersfield', 'Stockton', 'Riverside'], CO: ['Denver', 'Grand Junction', 'Pueblo'], CT: ['Hartford'], DE: ['Dover'],
  FL: ['Tampa', 'Orlando', 'Jacksonville', 'Ocala'], GA: ['Atlanta', 'Savannah', 'Macon'], HI: ['Honolulu'], ID: ['Boise', 'Idaho Falls'],
  IL: ['Peoria', 'Springfield', 'Rockford'], IN: ['Indianapolis', 'Fort Wayne'], IA: ['Des Moines', 'Cedar Rapids', 'Ames'], KS: ['Wichita', 'Salina'],
  KY: ['Louisville', 'Lexington'], LA: ['Baton Rouge', 'Shreveport', 'Lafayette'], ME: ['Bangor', 'Portland'], MD: ['Baltimore', 'Frederick'],
  MA: ['Worcester', 'Springfield'], MI: ['Grand Rapids', 'Lansing', 'Saginaw'], MN: ['Minneapolis', 'Duluth', 'Saint Cloud'], MS: ['Jackson', 'Hattiesburg'],
  MO: ['Kansas City', 'Saint Louis', 'Springfield'], MT: ['Billings', 'Missoula'], NE: ['Omaha', 'Lincoln', 'Grand Island'], NV: ['Reno', 'Las Vegas', 'Elko'],
  NH: ['Manchester', 'Concord'], NJ: ['Newark', 'Trenton'], NM: ['Albuquerque', 'Las Cruces'], NY: ['Albany', 'Buffalo', 'Syracuse'],
  NC: ['Charlotte', 'Raleigh', 'Greensboro'], ND: ['Fargo', 'Bismarck'], OH: ['Columbus', 'Toledo', 'Dayton'], OK: ['Oklahoma City', 'Tulsa'],
  OR: ['Portland', 'Eugene', 'Medford'], PA: ['Pittsburgh', 'Harrisburg', 'Allentown'], RI: ['Providence'], SC: ['Columbia', 'Greenville'],
  SD: ['Sioux Falls', 'Rapid City'], TN: ['Nashville', 'Memphis', 'Knoxville'], TX: ['Houston', 'Dallas', 'San Antonio', 'Lubbock', 'Amarillo'],
  UT: ['Salt Lake City', 'Provo'], VT: ['Burlington'], VA: ['Richmond', 'Roanoke'], WA: ['Spokane', 'Yakima', 'Tacoma'], WV: ['Charleston'],
  WI: ['Milwaukee', 'Madison', 'Green Bay'], WY: ['Casper', 'Cheyenne'], DC: ['Washington'],
};

/** A real city of the lot's state, fixed by its record id; null when the state is unknown. */
export function cityInState(state: string | null, recordId: string | number): string | null {
  const code = toStateCode(state);
  const cities = code ? CITIES[code] : undefined;
  if (!cities) return null;
  let h = 0;
  for (const ch of String(recordId)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return cities[h % cities.length]!;
}
