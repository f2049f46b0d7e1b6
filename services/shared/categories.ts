/** The spec's ten equipment types then Other, with the ids seeded by migration 0001. */
export const CATEGORIES = [
  { id: 1, name: 'Excavators', slug: 'excavators' },
  { id: 2, name: 'Bulldozers', slug: 'bulldozers' },
  { id: 3, name: 'Wheel Loaders', slug: 'wheel-loaders' },
  { id: 4, name: 'Backhoe Loaders', slug: 'backhoe-loaders' },
  { id: 5, name: 'Skid Steers', slug: 'skid-steers' },
  { id: 6, name: 'Cranes', slug: 'cranes' },
  { id: 7, name: 'Dump Trucks', slug: 'dump-trucks' },
  { id: 8, name: 'Generators', slug: 'generators' },
  { id: 9, name: 'Compactors', slug: 'compactors' },
  { id: 10, name: 'Graders', slug: 'graders' },
  { id: 11, name: 'Other', slug: 'other' },
] as const;

export type CategoryName = (typeof CATEGORIES)[number]['name'];
export const OTHER_CATEGORY_ID = 11;

export function categoryIdByName(name: string): number | undefined {
  const lower = name.trim().toLowerCase();
  return CATEGORIES.find((c) => c.name.toLowerCase() === lower || c.slug === lower)?.id;
}
