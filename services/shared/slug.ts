import { createHash } from 'node:crypto';

/** `2016 CAT 320FL Excavator!` → `2016-cat-320fl-excavator` (ASCII, bounded). */
export function slugify(text: string, maxLength = 60): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/g, '');
  return slug || 'lot';
}

/**
 * A listing's slug: readable title part plus a short digest of (source, external id). It is
 * computed once at insert and never changed, unique per lot, and never all digits (the digest
 * part starts with a letter), so the detail route can tell a slug from a numeric id.
 */
export function listingSlug(title: string, sourceName: string, externalId: string): string {
  const digest = BigInt(`0x${createHash('sha256').update(`${sourceName}\u0000${externalId}`).digest('hex').slice(0, 12)}`)
    .toString(36)
    .padStart(9, '0')
    .slice(-9);
  return `${slugify(title)}-l${digest}`;
}

export function isNumericId(value: string): boolean {
  return /^[0-9]{1,10}$/.test(value);
}
