/** The demo's Fast Iron lots read like auction listings: a buyer's words, never the record's columns or its empty options. */
import { describe, expect, it } from 'vitest';
import { DemoAuction } from '../../scripts/demo-site/demo-auction.js';
import { loadCatalog } from '../../scripts/demo-site/demo-catalog.js';
import { detailPage } from '../../scripts/demo-site/demo-pages.js';
import { parseDemoDetailPage } from '../../services/crawler/adapters/demo-adapter.js';
import { cleanText } from '../../services/shared/lots/text.js';
import { OPTION_COLUMNS } from '../../services/shared/datasets/fastiron.js';
import { fastIronListingText, sizeClass } from '../../services/shared/datasets/fastiron-listing-text.js';

/**
 * What a description must not show: a column's own name (as the record spells it, with spaces for
 * underscores, without its `fi` prefix) as a line's label, a compound column name anywhere, and an
 * option the record leaves empty ("No", "None or Unspecified") or only ticks ("Yes") as a value.
 */
function listingFaults(description: string): string[] {
  const faults: string[] = [];
  const names = new Set(OPTION_COLUMNS.flatMap((c) => [c, c.replace(/_/g, ' '), c.replace(/^fi/, ''), c.replace(/^fi/, '').replace(/_/g, ' ')]));
  const lines = description.split('\n');
  for (const name of names) {
    // camelCase, underscores or a `fi` prefix are a record's, in any place
    const compound = /_|^fi|[a-z][A-Z]/.test(name);
    if (compound && new RegExp(`\\b${name}\\b`).test(description)) faults.push(`column name ${name}`);
    // a multi-word column name as a label ("Engine Horsepower: …", "Tire Size: …")
    if (name.includes(' ') && lines.some((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))) faults.push(`column label ${name}`);
  }
  if (/none or unspecified|\bunspecified\b/i.test(description)) faults.push('an unspecified value');
  for (const line of lines) if (/:\s*(no|none|yes)\s*$/i.test(line)) faults.push(`bare value in "${line}"`);
  if (/\bw AC\b/.test(description)) faults.push('the record\'s "w AC"');
  return faults;
}

const facts = (attributes: Record<string, string>, over: Partial<Parameters<typeof fastIronListingText>[0]> = {}) =>
  fastIronListingText({ year: 2004, make: 'Caterpillar', model: '950G', hours: 5012, typeNoun: 'Wheel Loader', attributes, ...over });

describe('Fast Iron listing text', () => {
  it('writes the record up as a listing: the machine, its class and hours, then its configuration in a buyer\'s words', () => {
    const text = facts({
      fiProductClassDesc: 'Wheel Loader - 150.0 to 175.0 Horsepower',
      Enclosure: 'EROPS w AC',
      Hydraulics: '2 Valve',
      Tire_Size: '20.5',
      Coupler: 'Hydraulic',
      Forks: 'Yes',
      Ride_Control: 'No',
      Engine_Horsepower: 'No',
      Drive_System: 'No',
      UsageBand: 'Low',
      fiSecondaryDesc: 'G',
      Differential_Type: 'Standard',
    });
    const [summary, specs] = text.description.split('\n\n');
    expect(summary).toBe(
      '2004 Caterpillar 950G wheel loader, 150 to 175 hp class, with 5,012 hours on the meter, low for its age. ' +
        'Enclosed cab with A/C, 2-valve hydraulics, 20.5" tires, hydraulic coupler and forks.',
    );
    expect(text.details).toEqual({
      'Horsepower class': '150 to 175 hp',
      Cab: 'Enclosed (EROPS) with A/C',
      Differential: 'Standard',
      Hydraulics: '2-valve',
      Tires: '20.5"',
      Coupler: 'Hydraulic',
      Equipment: 'Forks',
      'Hours for its age': 'Low',
    });
    expect(specs!.split('\n')).toEqual(Object.entries(text.details).map(([k, v]) => `${k}: ${v}`));
    expect(listingFaults(text.description)).toEqual([]);
  });

  it('names a skid steer\'s high-flow hydraulics and grouser tracks, and an excavator\'s stick, thumb and track shoes', () => {
    const steer = facts({ Hydraulics: 'Auxiliary', Hydraulics_Flow: 'High Flow', Grouser_Tracks: 'Yes', Coupler_System: 'Yes' }, { typeNoun: 'Skid Steer Loader' });
    expect(steer.description.split('\n\n')[0]).toMatch(/\. High-flow auxiliary hydraulics, grouser tracks and coupler\.$/);
    expect(steer.details).toEqual({ Hydraulics: 'Auxiliary', 'Hydraulic flow': 'High flow', Equipment: 'Grouser tracks, coupler' });
    const excavator = facts(
      { Track_Type: 'Steel', Undercarriage_Pad_Width: '32 inch', Grouser_Type: 'Double', Stick_Length: '10\' 6"', Thumb: 'Hydraulic', Pattern_Changer: 'Yes', ProductSize: 'Mini' },
      { typeNoun: 'Excavator' },
    );
    expect(excavator.description.split('\n\n')[0]).toBe(
      '2004 Caterpillar 950G mini excavator with 5,012 hours on the meter. Steel tracks, 10\' 6" stick, hydraulic thumb and pattern changer.',
    );
    expect(excavator.details).toMatchObject({ Tracks: 'Steel', 'Track shoes': '32", double grouser', Stick: '10\' 6"', Thumb: 'Hydraulic', Equipment: 'Pattern changer' });
  });

  it('says only what the record has: no year, make, hours or options leave no words behind', () => {
    const bare = facts({ Ride_Control: 'No', Blade_Type: 'No', Enclosure: 'None or Unspecified', fiProductClassDesc: 'Wheel Loader - Unidentified' }, { year: null, make: null, hours: null });
    expect(bare).toEqual({ description: '950G wheel loader.', details: {} });
    // low usage is the record's word about its hours: without hours it is not claimed
    expect(facts({ UsageBand: 'Low' }, { hours: null }).description).toBe('2004 Caterpillar 950G wheel loader.');
  });

  it('shows a value it has no wording for as the record spells it, in the details only', () => {
    const text = facts({ Enclosure: 'NO ROPS', Transmission: 'Manual Shift' });
    expect(text.details).toMatchObject({ Cab: 'NO ROPS', Transmission: 'Manual Shift' });
    expect(text.description.split('\n\n')[0]).toBe('2004 Caterpillar 950G wheel loader with 5,012 hours on the meter. Manual Shift transmission.');
  });

  it('reads each product class as a size class in its own units', () => {
    expect(sizeClass('Hydraulic Excavator, Track - 21.0 to 24.0 Metric Tons')).toMatchObject({ label: 'Operating weight class', range: '21 to 24 metric tons' });
    expect(sizeClass('Skid Steer Loader - 2701.0+ Lb Operating Capacity')).toMatchObject({ label: 'Rated capacity class', range: '2,701+ lb' });
    expect(sizeClass('Backhoe Loader - 0.0 to 14.0 Ft Standard Digging Depth')).toMatchObject({ label: 'Digging depth class', range: 'up to 14 ft' });
    expect(sizeClass('Track Type Tractor, Dozer - 260.0 + Horsepower')).toMatchObject({ range: '260+ hp' });
    expect(sizeClass('Hydraulic Excavator, Track - Unidentified (Compact Construction)')).toBeNull();
  });

  it('finds the faults today\'s columns-as-text descriptions had', () => {
    expect(listingFaults('Engine Horsepower: No\nUsageBand: Low\nSecondaryDesc: B\nProductSize: Medium')).toEqual(
      expect.arrayContaining(['column name UsageBand', 'column name SecondaryDesc', 'column name ProductSize', 'column label Engine Horsepower', 'bare value in "Engine Horsepower: No"']),
    );
  });
});

describe('the demo catalog\'s descriptions', () => {
  it('read like listings for every Fast Iron lot, and the crawler reads them with the lot unchanged', async () => {
    const catalog = await loadCatalog(process.env.SHARED_DIR ?? '../shared');
    const fastIron = catalog.filter((m) => m.origin === 'fastiron');
    expect(fastIron.length).toBeGreaterThan(1000);
    const faulty = fastIron.map((m) => ({ id: m.recordId, faults: listingFaults(m.description) })).filter((r) => r.faults.length > 0);
    expect(faulty.slice(0, 5)).toEqual([]);
    // each opens with the machine its title names
    expect(fastIron.filter((m) => !m.description.startsWith([m.year, m.make, m.model].filter(Boolean).join(' ')))).toEqual([]);
    // the Ritchie Bros. machines (2010s–2020s) are written up the same way
    const rb = catalog.filter((m) => m.origin === 'rbauction');
    expect(rb.length).toBeGreaterThan(1000);
    expect(rb.map((m) => ({ id: m.recordId, faults: listingFaults(m.description) })).filter((r) => r.faults.length > 0).slice(0, 5)).toEqual([]);
    expect(rb.filter((m) => !m.description.startsWith(`${m.year} ${m.make} ${m.model} `))).toEqual([]);

    const auction = new DemoAuction(catalog, { seed: 42, lots: 120, speed: 0, startedAt: Date.UTC(2026, 10, 26), publishedShare: 1 });
    const view = auction.visible().find((v) => v.lot.machine.origin === 'fastiron' && v.lot.machine.hours !== null && v.lot.machine.year !== null)!;
    const url = `http://127.0.0.1:9/lots/${view.lot.id}`;
    const [lot] = parseDemoDetailPage({ step: { label: 'detail', url }, url, status: 200, contentType: 'text/html', body: detailPage(view, 'http://127.0.0.1:9'), fetchedAt: new Date() }).listings;
    const m = view.lot.machine;
    expect(lot).toMatchObject({ make: m.make, model: m.model, year: String(m.year), hours: String(m.hours), condition: view.lot.condition, state: m.state });
    expect(cleanText(lot!.description)).toBe(m.description.replace(/\n+/g, '\n'));
  }, 60_000);
});
