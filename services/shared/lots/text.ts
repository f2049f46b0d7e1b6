/**
 * Untrusted text from auction pages becomes plain, bounded data here: tags stripped, entities
 * decoded, control characters removed, whitespace collapsed, length capped. It is never markup
 * afterwards — whatever renders it escapes it.
 */
import { decodeHTML } from 'entities';

/**
 * Every HTML entity a page may use (the whole HTML5 table, numeric references, and the legacy
 * forms without a semicolon that browsers accept), as a browser would decode it: the `entities`
 * package cheerio itself uses, instead of a hand table that missed most names.
 */
export function decodeEntities(value: string): string {
  return value.includes('&') ? decodeHTML(value) : value;
}

// C0/C1 controls (except tab/newline), zero-width and bidi overrides: invisible and abusable.
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

function cut(value: string, maxLength: number): string {
  if (value.length <= maxLength) return value;
  // Do not split a surrogate pair.
  let end = maxLength - 1;
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${value.slice(0, end).trimEnd()}…`;
}

/** One line of plain text (titles, names): tags stripped, whitespace collapsed, at most `maxLength` characters. */
export function cleanLine(value: unknown, maxLength = 300): string {
  if (value === null || value === undefined) return '';
  const text = decodeEntities(String(value).slice(0, maxLength * 8).replace(/<[^>]*>/g, ' '))
    .replace(/<[^>]*>/g, ' ')
    .replace(INVISIBLE, '')
    .replace(/\s+/g, ' ')
    .trim();
  return cut(text, maxLength);
}

/** Multi-line plain text (descriptions) from HTML or text: block tags become line breaks. */
export function cleanText(value: unknown, maxLength = 10_000): string {
  if (value === null || value === undefined) return '';
  const html = String(value).slice(0, maxLength * 8);
  const text = decodeEntities(
    html
      .replace(/<(script|style|noscript|iframe|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<\s*(br|\/p|\/div|\/li|\/tr|\/h[1-6]|li)\b[^>]*>/gi, '\n')
      .replace(/<[^>]*>/g, ' '),
  )
    .replace(/<[^>]*>/g, ' ')
    .replace(INVISIBLE, '')
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n[ \n]*/g, '\n')
    .trim();
  return cut(text, maxLength);
}

/** An absolute http(s) URL resolved against `base`, or null (javascript:, data:, garbage, over-long). */
export function absoluteUrl(value: unknown, base: string, maxLength = 2048): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const url = new URL(decodeEntities(value.trim()), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    const href = url.href;
    return href.length <= maxLength ? href : null;
  } catch {
    return null;
  }
}

/** `$42,500.00`, `42500`, 42500 → 42500; anything else (negative, absurd, text) → null. */
export function parseMoney(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'number' && !/[0-9]/.test(String(value))) return null;
  const n = typeof value === 'number' ? value : Number(String(value).replace(/[^0-9.\-]/g, ''));
  if (!Number.isFinite(n) || n < 0 || n > 1e11) return null;
  return Math.round(n * 100) / 100;
}

/** A count (bids, hours): `1,234 hrs` → 1234; text without a number → null. */
export function parseCount(value: unknown, max = 10_000_000): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 && value <= max ? Math.round(value) : null;
  const m = /^\s*([0-9][0-9,]*)(\.[0-9]+)?/.exec(String(value));
  if (!m) return null;
  const n = Math.round(Number(`${m[1]!.replace(/,/g, '')}${m[2] ?? ''}`));
  return Number.isFinite(n) && n >= 0 && n <= max ? n : null;
}
