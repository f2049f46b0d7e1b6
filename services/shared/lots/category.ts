/**
 * Maps what a source says about a lot (its title, its own category label) to the spec's ten
 * equipment types or Other. The part of a title before "with"/"w/" names the machine; what
 * follows names attachments ("Utility Truck With … Crane" is not a crane).
 */
import { categoryIdByName, OTHER_CATEGORY_ID, type CategoryName } from '../categories.js';

// Order matters: the first rule that matches wins, most specific first.
const RULES: [CategoryName, RegExp][] = [
  ['Backhoe Loaders', /\bbackhoes?\b|\bloader[\s-]backhoes?\b|\btractor loader backhoes?\b/i],
  ['Skid Steers', /\bskid[\s-]?steers?|\bcompact track loaders?\b|\bmulti[\s-]terrain loaders?\b|\btrack loaders?\b|\bposi[\s-]?track\b|\bctl\b/i],
  ['Excavators', /\bexcavators?\b|\btrackhoes?\b|\bmini[\s-]?ex\b/i],
  ['Bulldozers', /\b(bull)?dozers?\b|\bcrawler tractors?\b/i],
  ['Graders', /\bgraders?\b/i],
  ['Compactors', /\bcompactors?\b|\b(vibratory|smooth drum|padfoot|pneumatic|tandem|double drum|single drum)\b.*\brollers?\b|\brollers?\b.*\bcompact|\brammers?\b|\bsoil rollers?\b|\bdrum rollers?\b/i],
  // an engine or shop crane is a workshop hoist; John Crane makes seals
  ['Cranes', /(?<!\b(?:engine|shop|john) )\bcranes?\b|\bboom trucks?\b/i],
  // a steam, nitrogen or ozone "generator" makes something other than electric power
  ['Generators', /(?<!\b(?:steam|nitrogen|hot water|ozone|foam|fog|smoke|hydrogen|oxygen|ice|signal|function|tone|bubble|snow) )\bgenerators?\b|\bgen[\s-]?sets?\b|\bpower systems?\b/i],
  ['Dump Trucks', /\bdump trucks?\b|\bdump\b.*\btrucks?\b|\btrucks?\b.*\bdump\b|\btippers?\b|\barticulated (dump|haulers?)\b|\brock trucks?\b|\boff[\s-]highway trucks?\b/i],
  ['Wheel Loaders', /\bwheel loaders?\b|\bfront[\s-]end loaders?\b|\bpayloaders?\b|\bloaders?\b/i],
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
    if (/\btrailers?\b|\bbuckets?\b|\battachments?\b|\bparts?\b|\btires?\b|\btracks? only\b/i.test(part) && !/\bdump trucks?\b/i.test(part)) {
      if (!/\b(excavator|dozer|loader|grader|crane|generator|compactor|roller)\b.*\b(with|w\/)\b/i.test(text)) continue;
    }
    for (const [name, pattern] of RULES) if (pattern.test(part)) return categoryIdByName(name)!;
  }
  return OTHER_CATEGORY_ID;
}
