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
  if (yearMatch) {
    const y = Number(yearMatch[1]);
    if (y <= maxYear) year = y;
    rest = rest.slice(yearMatch[0].length);
  }

  let make: string | null = null;
  const lower = rest.toLowerCase();
  for (const [spelling, canonical] of SPELLINGS) {
    if (lower.startsWith(spelling) && (lower.length === spelling.length || /[\s/,-]/.test(lower[spelling.length]!))) {
      make = canonical;
      rest = rest.slice(spelling.length).replace(/^[\s/,-]+/, '');
      break;
    }
  }

  // A make the list does not know: one or two capitalised words right before a model designation
  // ("Degelman RR1500 Rock Rake", "2011 Trail King TK54MG-482 …"). Never a tyre size or a measure.
  if (!make) {
    const unknown = /^([A-Z][A-Za-z&'.-]+(?: [A-Z][A-Za-z&'.-]+)?) (\S+)/.exec(rest);
    if (unknown && !NOT_MAKES.test(unknown[1]!) && looksLikeDesignation(unknown[2]!)) {
      make = unknown[1]!;
      rest = rest.slice(make.length).trimStart();
    }
  }

  let model: string | null = null;
  if (make) {
    const tokens = machinePart(rest).split(' ').filter(Boolean);
    const first = tokens[0];
    if (first && !STOP_WORDS.has(first.toLowerCase()) && looksLikeModel(first) && !isMeasure(first)) {
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
