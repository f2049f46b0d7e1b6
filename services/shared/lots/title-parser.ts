/**
 * Pulls year, make and model out of auction titles such as "2016 CAT 320FL Excavator",
 * "Caterpillar D4B Dozer" or "1996 John Deere 870 Tractor". Makes are matched against a list
 * of equipment and truck manufacturers with their common spellings; the model is the first
 * token after the make that looks like a model designation.
 */
import { categoryIdFor, machinePart } from './category.js';

/** Canonical make → spellings seen in titles (lower case, longest first where they overlap). */
const MAKES: Record<string, string[]> = {
  Caterpillar: ['caterpillar', 'cat'],
  'John Deere': ['john deere', 'deere', 'jd'],
  Komatsu: ['komatsu'],
  Case: ['case ih', 'case'],
  'New Holland': ['new holland'],
  Bobcat: ['bobcat'],
  Kubota: ['kubota'],
  Volvo: ['volvo'],
  Hitachi: ['hitachi'],
  Kobelco: ['kobelco'],
  Doosan: ['doosan'],
  Daewoo: ['daewoo'],
  Hyundai: ['hyundai'],
  JCB: ['jcb'],
  Liebherr: ['liebherr'],
  Takeuchi: ['takeuchi'],
  Terex: ['terex'],
  Gehl: ['gehl'],
  Mustang: ['mustang'],
  ASV: ['asv'],
  'Link-Belt': ['link-belt', 'link belt', 'linkbelt'],
  Sany: ['sany'],
  XCMG: ['xcmg'],
  LiuGong: ['liugong'],
  Yanmar: ['yanmar'],
  'Wacker Neuson': ['wacker neuson', 'wacker'],
  Manitou: ['manitou'],
  Genie: ['genie'],
  JLG: ['jlg'],
  Skyjack: ['skyjack'],
  Grove: ['grove'],
  Manitowoc: ['manitowoc'],
  Tadano: ['tadano'],
  Broderson: ['broderson'],
  Dynapac: ['dynapac'],
  Hamm: ['hamm'],
  Bomag: ['bomag'],
  Sakai: ['sakai'],
  'Ingersoll Rand': ['ingersoll rand', 'ingersoll-rand'],
  'Atlas Copco': ['atlas copco'],
  Sullair: ['sullair'],
  Generac: ['generac'],
  Multiquip: ['multiquip'],
  Kohler: ['kohler'],
  Cummins: ['cummins'],
  Mack: ['mack'],
  Kenworth: ['kenworth'],
  Peterbilt: ['peterbilt'],
  Freightliner: ['freightliner'],
  International: ['international', 'ihc'],
  'Western Star': ['western star'],
  Sterling: ['sterling'],
  Ford: ['ford'],
  Chevrolet: ['chevrolet', 'chevy'],
  GMC: ['gmc'],
  Ram: ['ram', 'dodge ram'],
  Dodge: ['dodge'],
  Toyota: ['toyota'],
  Isuzu: ['isuzu'],
  Hino: ['hino'],
  Hyster: ['hyster'],
  Yale: ['yale'],
  Clark: ['clark'],
  LeeBoy: ['leeboy'],
  Vermeer: ['vermeer'],
  'Ditch Witch': ['ditch witch'],
  Gradall: ['gradall'],
  Lull: ['lull'],
  SkyTrak: ['skytrak', 'sky trak'],
  Miller: ['miller'],
  Lincoln: ['lincoln electric', 'lincoln'],
  Kaeser: ['kaeser'],
  'Allis-Chalmers': ['allis-chalmers', 'allis chalmers'],
  Champion: ['champion'],
  Massey: ['massey ferguson', 'massey'],
  AGT: ['agt'],
  Mahindra: ['mahindra'],
  // Farm, trailer and tyre makes common at equipment auctions (BigIron, Purple Wave, Ritchie Bros.).
  'Trail King': ['trail king', 'trail-king'],
  Fontaine: ['fontaine'],
  Talbert: ['talbert'],
  Landoll: ['landoll'],
  Timpte: ['timpte'],
  Wilson: ['wilson'],
  MacDon: ['macdon'],
  Kuhn: ['kuhn knight', 'kuhn'],
  'Great Plains': ['great plains'],
  Kinze: ['kinze'],
  Krause: ['krause'],
  Sunflower: ['sunflower'],
  Brandt: ['brandt'],
  Sukup: ['sukup'],
  Reinke: ['reinke'],
  Lindsay: ['lindsay'],
  Valley: ['valley'],
  Versatile: ['versatile'],
  Steiger: ['steiger'],
  Fendt: ['fendt'],
  Claas: ['claas'],
  AGCO: ['agco'],
  Gleaner: ['gleaner'],
  'McCormick-Deering': ['mccormick-deering', 'mccormick deering'],
  Farmall: ['farmall'],
  Polaris: ['polaris'],
  Honda: ['honda'],
  Nissan: ['nissan'],
  Jeep: ['jeep'],
  Titan: ['titan'],
  Michelin: ['michelin'],
  Firestone: ['firestone'],
  Goodyear: ['goodyear'],
  Bridgestone: ['bridgestone'],
  Carlisle: ['carlisle'],
  'American Farmer': ['american farmer'],
  // Farm-supply, irrigation, tank and trailer makers (added 2026-11-21 from the labelled sample's misses).
  Knaack: ['knaack'],
  Cozad: ['cozad'],
  'Kimball Midwest': ['kimball midwest'],
  'Hog Slat': ['hog slat'],
  Hastings: ['hastings'],
  Kongskilde: ['kongskilde'],
  'Quality Steel': ['quality steel'],
  'Bradford Built': ['bradford built'],
  Behlen: ['behlen'],
  Lucon: ['lucon'],
};

// Older spellings of makes listed above.
MAKES.Case!.push('j i case', 'j.i. case', 'j. i. case');

const SPELLINGS: [string, string][] = Object.entries(MAKES)
  .flatMap(([make, spellings]) => spellings.map((s) => [s, make] as [string, string]))
  .sort((a, b) => b[0].length - a[0].length);

/** `cat` → `Caterpillar`; unknown makes are returned cleaned, never invented. */
export function canonicalMake(value: string | null | undefined): string | null {
  if (!value) return null;
  const v = value.trim().replace(/\s+/g, ' ');
  if (!v || /^(unknown|n\/?a|none|other|-+)$/i.test(v)) return null;
  const lower = v.toLowerCase();
  for (const [spelling, make] of SPELLINGS) if (lower === spelling) return make;
  return v.length <= 40 ? v : null;
}

export type ParsedTitle = {
  year: number | null;
  make: string | null;
  model: string | null;
  categoryId: number;
};

const STOP_WORDS = new Set(['with', 'w/', 'and', '-', '–', 'for', 'unused', 'new', 'used', 'lot', 'of']);

// Drive and axle designations follow models but are not part of them ("C10 2WD", "2670 4WD").
const DRIVE_CODES = /^(2WD|4WD|AWD|FWD|MFWD|4X4|4x4)$/;
// Words that start titles without naming a make.
const NOT_MAKES = /^(lot|lots|tract|set|sets|pair|box|boxes|pallet|qty|quantity|new|used|unused|approx|assorted|assortment|misc|various|steel|stainless|aluminum|galvanized|the|one|two|three|four|five|six|seven|eight|nine|ten|no|not|approximately)\b/i;

/** A size or measure, not a model: tyre sizes (14.9-28, 11R24.5) and lengths in feet or inches (8”, 24'). */
function isMeasure(token: string): boolean {
  return /['’”"]/.test(token) || /^\d{1,2}(\.\d{1,2})?[LR]?[-/R]\d{2}(\.\d)?(SL)?$/i.test(token);
}

/** A model designation after an unknown make: letters and digits (at least one digit), no measure, no tyre size. */
function looksLikeDesignation(token: string): boolean {
  if (!/^[A-Za-z0-9][A-Za-z0-9.\-/]*$/.test(token) || !/\d/.test(token)) return false;
  if (/[a-z]{3,}/.test(token)) return false; // "2-seat", "4x4s"
  return !isMeasure(token);
}

/**
 * A model named by one or two words before its designation ("Super 85-C", "Cushion Air 500",
 * "Vertical Maxx 1100", "Columbia 120"), or null. The words are capitalised, not stop words;
 * the designation is not a measure, a rating or a drive code.
 */
function namedModel(rest: string): string | null {
  const m = /^((?:[A-Z][A-Za-z-]+ ){1,2})(\S+)/.exec(rest);
  if (!m) return null;
  const words = m[1]!.trim().split(' ');
  if (words.some((w) => STOP_WORDS.has(w.toLowerCase()) || NOT_MAKES.test(w))) return null;
  const designation = m[2]!.replace(/[,;:]+$/, '');
  // Ratings are not models: "Centrifugal 220V Grain Dryer Fan".
  if (!looksLikeDesignation(designation) || DRIVE_CODES.test(designation) || /^\d+(V|W|KW|KVA|HP|GPM|PSI|CFM)$/i.test(designation)) return null;
  return `${words.join(' ')} ${designation}`;
}

/** The known make a text starts with, and how many characters it spans. */
function knownMakeAt(text: string): { make: string; length: number } | null {
  const lower = text.toLowerCase();
  for (const [spelling, canonical] of SPELLINGS) {
    if (lower.startsWith(spelling) && (lower.length === spelling.length || /[\s/,-]/.test(lower[spelling.length]!))) return { make: canonical, length: spelling.length };
  }
  return null;
}

function looksLikeModel(token: string): boolean {
  return /\d/.test(token) || /^[A-Z]{1,4}$/.test(token);
}

/** The year, make and model a title states, and the category it names. */
export function parseTitle(title: string, now = new Date()): ParsedTitle {
  const text = title.replace(/\s+/g, ' ').trim();
  const maxYear = now.getUTCFullYear() + 1;
  let rest = text;
  let year: number | null = null;
  const yearMatch = /^(?:\(?)((?:19[3-9]|20[0-9])[0-9])\)?\b\s*/.exec(rest);
  // Before 1930 a leading number is a year only when a known make follows ("1928 McCormick-Deering
  // 10-20"); otherwise it is more likely a quantity or a size ("1000 Gallon Fuel Tank").
  const earlyYear = yearMatch ? null : /^(19[0-2][0-9]) /.exec(rest);
  if (yearMatch) {
    const y = Number(yearMatch[1]);
    if (y <= maxYear) year = y;
    rest = rest.slice(yearMatch[0].length);
  } else if (earlyYear && knownMakeAt(rest.slice(earlyYear[0].length))) {
    year = Number(earlyYear[1]);
    rest = rest.slice(earlyYear[0].length);
  }

  let make: string | null = null;
  const known = knownMakeAt(rest);
  if (known) {
    make = known.make;
    rest = rest.slice(known.length).replace(/^[\s/,-]+/, '');
  }

  // A make the list does not know: a capitalised word before a model designation, which may start
  // with up to two words ("Degelman RR1500 Rock Rake", "Koyker Super 85-C Auger"). Never a tyre
  // size or a measure.
  if (!make) {
    const unknown = /^([A-Z][A-Za-z&'.-]+) (\S+)/.exec(rest);
    if (unknown && !NOT_MAKES.test(unknown[1]!) && (looksLikeDesignation(unknown[2]!) || namedModel(rest.slice(unknown[1]!.length + 1)))) {
      make = unknown[1]!;
      rest = rest.slice(make.length).trimStart();
    }
  }

  let model: string | null = null;
  if (make) {
    const tokens = machinePart(rest).split(' ').filter(Boolean);
    const first = tokens[0];
    const named = namedModel(rest);
    if (first && !looksLikeModel(first) && named) {
      model = named;
    } else if (first && !STOP_WORDS.has(first.toLowerCase()) && looksLikeModel(first) && !isMeasure(first)) {
      model = first.replace(/[,;:]+$/, '');
      const second = tokens[1];
      // "8360 RT", "320 LC", "950 GC": a short suffix in capitals belongs to the model.
      if (second && /^[A-Z0-9]{1,3}$/.test(second) && !/^\d{3,}$/.test(second) && !DRIVE_CODES.test(second) && !/^\d+$/.test(second)) model = `${model} ${second}`;
    }
  }
  return { year, make, model: model && model.length <= 40 ? model : null, categoryId: categoryIdFor(text) };
}

/**
 * The model family comparable sales are grouped by: the leading letters and digits of a model
 * (`320FL` → `320`, `D6R` → `D6`, `950 GC` → `950`, `PC200LC-8` → `PC200`).
 */
export function modelFamily(model: string | null | undefined): string | null {
  if (!model) return null;
  const m = /^([A-Za-z]{0,4}-?\d+)/.exec(model.trim());
  return m ? m[1]!.replace('-', '').toUpperCase() : null;
}
