/**
 * Maps what a source says about a lot (its title, its own category label) to the spec's ten
 * equipment types or Other. The part of a title before "with"/"w/" names the machine; what
 * follows names attachments ("Utility Truck With … Crane" is not a crane).
 */
import { categoryIdByName, OTHER_CATEGORY_ID, type CategoryName } from '../../shared/categories.js';

// Order matters: the first rule that matches wins, most specific first.
const RULES: [CategoryName, RegExp][] = [
  ['Backhoe Loaders', /\bbackhoe\b|\bloader[\s-]backhoe\b|\btractor loader backhoe\b/i],
  ['Skid Steers', /\bskid[\s-]?steer|\bcompact track loader\b|\bmulti[\s-]terrain loader\b|\btrack loader\b|\bposi[\s-]?track\b|\bctl\b/i],
  ['Excavators', /\bexcavator|\btrackhoe\b|\bmini[\s-]?ex\b|\bhydraulic excavator/i],
  ['Bulldozers', /\b(bull)?dozer\b|\bcrawler tractor\b|\bcrawler dozer\b/i],
  ['Graders', /\bgrader\b/i],
  ['Compactors', /\bcompactor\b|\b(vibratory|smooth drum|padfoot|pneumatic|tandem|double drum|single drum)\b.*\broller\b|\broller\b.*\bcompact|\brammer\b|\bsoil roller\b|\bdrum roller\b/i],
  ['Cranes', /\bcrane\b|\bboom truck\b/i],
  ['Generators', /\bgenerator\b|\bgen[\s-]?set\b|\bpower system\b/i],
  ['Dump Trucks', /\bdump truck\b|\bdump\b.*\btruck\b|\btruck\b.*\bdump\b|\btipper\b|\barticulated (dump|hauler)\b|\brock truck\b|\boff[\s-]highway truck\b/i],
  ['Wheel Loaders', /\bwheel loader\b|\bfront[\s-]end loader\b|\bpayloader\b|\bloader\b/i],
];

/** The machine part of a title: before " with ", " w/ ", " includes ", " and attachments". */
export function machinePart(title: string): string {
  return title.split(/\s+(?:with|w\/|includes|including|plus)\s+|\s+\(/i)[0] ?? title;
}

/** Category id for the given texts, tried in order (e.g. the source's own category, then the title). */
export function categoryIdFor(...texts: (string | null | undefined)[]): number {
  for (const text of texts) {
    if (!text) continue;
    const part = machinePart(text);
    // A trailer carrying a machine, or a part of a machine, is not the machine.
    if (/\btrailer\b|\bbucket\b|\battachment\b|\bparts?\b|\btires?\b|\btracks? only\b/i.test(part) && !/\bdump truck\b/i.test(part)) {
      if (!/\b(excavator|dozer|loader|grader|crane|generator|compactor|roller)\b.*\b(with|w\/)\b/i.test(text)) continue;
    }
    for (const [name, pattern] of RULES) if (pattern.test(part)) return categoryIdByName(name)!;
  }
  return OTHER_CATEGORY_ID;
}
