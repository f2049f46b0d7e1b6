/**
 * A Fast Iron sale record written up as an auctioneer would list the machine: a sentence or two
 * a buyer reads, then the specifications under labels a buyer knows ("Cab", "Tires", "Ripper"),
 * never the record's column names ("Enclosure", "UsageBand", "fiSecondaryDesc").
 *
 * Only what the record says: a field left empty, "None or Unspecified" or "No" adds nothing,
 * and a value this module has no wording for is shown as the record spells it rather than
 * guessed at. A pure function of the record: the same record always reads the same.
 */

export type FastIronMachineFacts = {
  year: number | null;
  make: string | null;
  model: string;
  hours: number | null;
  /** What the machine is, in the sentence ("wheel loader"). */
  typeNoun: string;
  /** The record's option columns with a value (FastIronRecord.attributes). */
  attributes: Record<string, string>;
};

export type ListingText = {
  /** The summary sentences, a blank line, then one `Label: value` line per specification. */
  description: string;
  /** The specifications, label → value, in the order a listing shows them. */
  details: Record<string, string>;
};

/** Values that say nothing about the machine: the record's "not this option". */
const NO_VALUE = new Set(['', 'no', 'none', 'none or unspecified', 'unspecified', 'unidentified', '#name?']);

function value(attributes: Record<string, string>, column: string): string | null {
  const v = attributes[column]?.trim();
  return v === undefined || NO_VALUE.has(v.toLowerCase()) ? null : v;
}

const yes = (attributes: Record<string, string>, column: string) => value(attributes, column)?.toLowerCase() === 'yes';

/** A known value's wording, else the value as the record spells it (never a guess). */
function word(map: Record<string, string>, v: string): string {
  return map[v.toLowerCase()] ?? v;
}

const number = (s: string) => Number(s).toLocaleString('en-US', { maximumFractionDigits: 1 });

/**
 * The product class ("Wheel Loader - 150.0 to 175.0 Horsepower") as a size class: its label and
 * its range in a buyer's units ("150 to 175 hp").
 */
const CLASS_UNITS: [RegExp, string, string, string][] = [
  [/^horsepower$/i, 'Horsepower class', 'hp', 'hp'],
  [/^metric tons?$/i, 'Operating weight class', 'metric tons', 'metric ton'],
  [/^ft standard digging depth$/i, 'Digging depth class', 'ft', 'ft digging depth'],
  [/^lb operating capacity$/i, 'Rated capacity class', 'lb', 'lb capacity'],
];

/** `inSentence`: the range as the summary names the class ("21 to 24 metric ton" class). */
export function sizeClass(productClass: string | null): { label: string; range: string; inSentence: string } | null {
  const m = productClass ? /-\s*([\d.]+)\s*(?:to\s*([\d.]+)|(\+))\s*(.+)$/.exec(productClass) : null;
  if (!m) return null;
  const unit = CLASS_UNITS.find(([pattern]) => pattern.test(m[4]!.trim()));
  if (!unit) return null;
  const [, label, symbol, sentenceUnit] = unit;
  const [low, high] = [Number(m[1]), m[2] === undefined ? null : Number(m[2])];
  if (!Number.isFinite(low) || (high !== null && !Number.isFinite(high))) return null;
  const span = high === null ? `${number(m[1]!)}+` : low === 0 ? `up to ${number(m[2]!)}` : `${number(m[1]!)} to ${number(m[2]!)}`;
  return { label, range: `${span} ${symbol}`, inSentence: `${span} ${sentenceUnit}` };
}

const CAB: Record<string, { detail: string; phrase: string }> = {
  'erops w ac': { detail: 'Enclosed (EROPS) with A/C', phrase: 'enclosed cab with A/C' },
  'erops ac': { detail: 'Enclosed (EROPS) with A/C', phrase: 'enclosed cab with A/C' },
  erops: { detail: 'Enclosed (EROPS)', phrase: 'enclosed cab' },
  orops: { detail: 'Open station with ROPS canopy (OROPS)', phrase: 'open ROPS canopy' },
};
const DRIVE: Record<string, string> = { 'four wheel drive': 'Four-wheel drive', 'two wheel drive': 'Two-wheel drive', 'all wheel drive': 'All-wheel drive' };
const TRANSMISSION: Record<string, string> = {
  standard: 'Standard', powershift: 'Powershift', hydrostatic: 'Hydrostatic', powershuttle: 'Power shuttle', autoshift: 'Autoshift', 'direct drive': 'Direct drive',
};
const HYDRAULICS: Record<string, string> = { standard: 'Standard', auxiliary: 'Auxiliary', '2 valve': '2-valve', '3 valve': '3-valve', '4 valve': '4-valve' };
const BLADE: Record<string, string> = {
  pat: 'Power angle tilt (PAT)', vpat: 'Variable pitch angle tilt (VPAT)', 'semi u': 'Semi-U', u: 'U', straight: 'Straight', angle: 'Angle', landfill: 'Landfill',
};
const RIPPER: Record<string, string> = { 'single shank': 'Single-shank', 'multi shank': 'Multi-shank' };
const TRAVEL: Record<string, string> = {
  'differential steer': 'Differential steer', 'finger tip': 'Fingertip', lever: 'Lever', '2 pedal': 'Two-pedal', pedal: 'Pedal', '1 speed': 'Single-speed',
};
const FLOW: Record<string, string> = { standard: 'Standard flow', 'high flow': 'High flow' };
const DIFFERENTIAL: Record<string, string> = { standard: 'Standard', 'limited slip': 'Limited-slip', 'no spin': 'No-spin' };
const TIP: Record<string, string> = { 'sideshift & tip': 'sideshift and tip', tip: 'tip' };

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const isStandard = (v: string) => /^(standard|conventional)$/i.test(v);
const lower = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);
/** `20.5` and `20.5"` are both inches of tire width: shown the one way. */
const inches = (v: string) => (/^[\d.]+$/.test(v) ? `${v}"` : v);

/**
 * The specifications (label → value) and the features worth naming in the summary, in the order a
 * buyer looks for them: cab, drivetrain, hydraulics, running gear, work tools, controls.
 */
function specifications(a: Record<string, string>, hoursKnown: boolean): { details: [string, string][]; features: string[] } {
  const details: [string, string][] = [];
  const features: string[] = [];
  // `feature`: the phrase the summary names it by; false, null or absent: details only
  const add = (label: string, v: string | null, feature?: string | false | null) => {
    if (v === null) return;
    details.push([label, v]);
    if (feature) features.push(feature);
  };

  const size = sizeClass(value(a, 'fiProductClassDesc'));
  if (size) add(size.label, size.range);

  const cab = value(a, 'Enclosure');
  const knownCab = cab ? CAB[cab.toLowerCase()] : undefined;
  add('Cab', cab && (knownCab?.detail ?? cab), knownCab?.phrase);
  const profile = value(a, 'Enclosure_Type');
  add('Cab profile', profile && profile.toLowerCase());

  const drive = value(a, 'Drive_System');
  add('Drive', drive && word(DRIVE, drive), drive && lower(word(DRIVE, drive)));
  const transmission = value(a, 'Transmission');
  add('Transmission', transmission && word(TRANSMISSION, transmission), transmission && !isStandard(transmission) && `${lower(word(TRANSMISSION, transmission))} transmission`);
  const differential = value(a, 'Differential_Type');
  add('Differential', differential && word(DIFFERENTIAL, differential), differential && !isStandard(differential) && `${lower(word(DIFFERENTIAL, differential))} differential`);
  const steering = value(a, 'Steering_Controls');
  add('Steering', steering, steering && !isStandard(steering) && `${steering} steering`);
  if (value(a, 'Engine_Horsepower')?.toLowerCase() === 'variable') add('Engine', 'Variable horsepower', 'variable-horsepower engine');
  if (yes(a, 'Turbocharged')) add('Engine', 'Turbocharged', 'turbocharged engine');

  const hydraulics = value(a, 'Hydraulics');
  const hydraulicsWord = hydraulics && word(HYDRAULICS, hydraulics).replace(/ Function$/i, ' function');
  const flow = value(a, 'Hydraulics_Flow');
  // one phrase for both: "high-flow auxiliary hydraulics"
  const flowWord = flow && !isStandard(flow) ? `${word(FLOW, flow).toLowerCase().replace(' ', '-')} ` : '';
  const kindWord = hydraulics && !isStandard(hydraulics) ? `${lower(hydraulicsWord!)} ` : '';
  const phrase = (flowWord || kindWord) && `${flowWord}${kindWord}hydraulics`;
  add('Hydraulics', hydraulicsWord, phrase);
  add('Hydraulic flow', flow && word(FLOW, flow), !hydraulicsWord && phrase);

  const track = value(a, 'Track_Type');
  add('Tracks', track, track && `${lower(track)} tracks`);
  const shoes = [value(a, 'Undercarriage_Pad_Width')?.replace(/\s*inch$/i, '"'), value(a, 'Grouser_Type') && `${lower(value(a, 'Grouser_Type')!)} grouser`].filter(Boolean);
  add('Track shoes', shoes.length ? shoes.join(', ') : null);
  if (yes(a, 'Grouser_Tracks')) add('Equipment', 'Grouser tracks', 'grouser tracks');
  const tires = value(a, 'Tire_Size');
  add('Tires', tires && inches(tires), tires && `${inches(tires)} tires`);
  const pads = value(a, 'Pad_Type');
  add('Stabilizer pads', pads, pads && `${lower(pads)} stabilizer pads`);
  if (/^lgp$/i.test(value(a, 'fiModelDescriptor') ?? '')) add('Undercarriage', 'Low ground pressure (LGP)', 'LGP undercarriage');

  const blade = value(a, 'Blade_Type');
  add('Blade', blade && word(BLADE, blade), blade && `${lower(word(BLADE, blade)).replace(/ \(.*\)$/, '')} blade`.replace(/^power angle tilt/, 'PAT').replace(/^variable pitch angle tilt/, 'VPAT'));
  const moldboard = [value(a, 'Blade_Width'), yes(a, 'Blade_Extension') ? 'with extension' : null, value(a, 'Tip_Control') && `${word(TIP, value(a, 'Tip_Control')!)} control`].filter(Boolean);
  add('Moldboard', moldboard.length ? moldboard.join(', ') : null, value(a, 'Blade_Width') && `${value(a, 'Blade_Width')} moldboard`);
  const ripper = value(a, 'Ripper');
  if (ripper?.toLowerCase() === 'yes') add('Equipment', 'Ripper', 'ripper');
  else if (ripper) add('Ripper', word(RIPPER, ripper), `${lower(word(RIPPER, ripper))} ripper`);
  if (yes(a, 'Scarifier')) add('Equipment', 'Scarifier', 'scarifier');
  if (yes(a, 'Pushblock')) add('Equipment', 'Push block', 'push block');
  const stick = value(a, 'Stick');
  add('Backhoe stick', stick && (stick.toLowerCase() === 'extended' ? 'Extendable' : stick), stick?.toLowerCase() === 'extended' && 'extendable stick');
  const stickLength = value(a, 'Stick_Length');
  add('Stick', stickLength, stickLength && `${stickLength} stick`);
  const thumb = value(a, 'Thumb');
  add('Thumb', thumb, thumb && `${lower(thumb)} thumb`);
  const coupler = value(a, 'Coupler');
  add('Coupler', coupler, coupler && `${lower(coupler)} coupler`);
  if (!coupler && yes(a, 'Coupler_System')) add('Equipment', 'Coupler', 'coupler');
  if (yes(a, 'Forks')) add('Equipment', 'Forks', 'forks');
  if (yes(a, 'Ride_Control')) add('Equipment', 'Ride control', 'ride control');
  if (yes(a, 'Pattern_Changer')) add('Equipment', 'Pattern changer', 'pattern changer');
  if (yes(a, 'Backhoe_Mounting')) add('Equipment', 'Backhoe mount', 'backhoe mount');

  const travel = value(a, 'Travel_Controls');
  add('Controls', travel && word(TRAVEL, travel), travel && `${lower(word(TRAVEL, travel))} controls`);

  const usage = value(a, 'UsageBand');
  if (hoursKnown && usage) add('Hours for its age', lower(usage));
  return { details: mergeLabels(details), features };
}

/** Two facts under one label ("Engine": variable horsepower, turbocharged) read as one line. */
function mergeLabels(details: [string, string][]): [string, string][] {
  const merged = new Map<string, string>();
  for (const [label, v] of details) merged.set(label, merged.has(label) ? `${merged.get(label)}, ${lower(v)}` : capitalized(v));
  return [...merged];
}

/** "a, b and c". */
function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export function fastIronListingText(m: FastIronMachineFacts): ListingText {
  const a = m.attributes;
  const { details, features } = specifications(a, m.hours !== null);
  const size = value(a, 'ProductSize');
  const noun = size && /^(mini|compact)$/i.test(size) ? `${size.toLowerCase()} ${m.typeNoun.toLowerCase()}` : m.typeNoun.toLowerCase();
  const name = [m.year, m.make, m.model, noun].filter((p) => p !== null && p !== '').join(' ');
  const sized = sizeClass(value(a, 'fiProductClassDesc'));
  const inClass = sized ? `, ${sized.inSentence} class` : '';
  const lowUsage = m.hours !== null && value(a, 'UsageBand')?.toLowerCase() === 'low';
  const hours = m.hours !== null ? `${inClass ? ',' : ''} with ${m.hours.toLocaleString('en-US')} hours on the meter${lowUsage ? ', low for its age' : ''}` : '';
  const summary = [`${capitalized(name)}${inClass}${hours}.`];
  if (features.length) {
    const sentence = list(features);
    summary.push(`${capitalized(sentence)}.`);
  }
  const description = [summary.join(' '), details.map(([label, v]) => `${label}: ${v}`).join('\n')].filter(Boolean).join('\n\n');
  return { description, details: Object.fromEntries(details) };
}
