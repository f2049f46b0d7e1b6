/**
 * Pages of a Next.js App Router site carry their data as React Server Components "flight" rows,
 * pushed by inline scripts: `<script>self.__next_f.push([1,"…"])</script>`, the row text being a
 * JSON string literal. Joined, the chunks form lines `<hex id>:<tag?><payload>`; most payloads
 * are JSON (an element `["$", type, key, props]`, or a props object), `E{…}` rows are server
 * errors (a `notFound()` is `E{"digest":"NEXT_HTTP_ERROR_FALLBACK;404"}`).
 *
 * This reads those rows as data, never as markup: each is JSON.parse'd on its own, and a row that
 * does not parse (a cut page, a text row) is skipped rather than failing the whole page.
 */

export type FlightRow = { id: string; tag: string; value: unknown };

const PUSH = /self\.__next_f\.push\(\[\s*1\s*,\s*("(?:[^"\\]|\\[\s\S])*")\s*\]\)/g;
const ROW = /^([0-9a-f]+):([A-Z]{0,2})([[{"].*)$/;
/** Deeper than any real page: garbage cannot make the walk run away. */
const MAX_DEPTH = 400;

export function isFlightPage(body: string): boolean {
  return body.includes('self.__next_f.push(');
}

/** The page's flight rows, in order. A page without any yields []. */
export function readFlightRows(body: string): FlightRow[] {
  let stream = '';
  for (const m of body.matchAll(PUSH)) {
    try {
      const chunk: unknown = JSON.parse(m[1]!);
      if (typeof chunk === 'string') stream += chunk;
    } catch {
      // A chunk cut by a truncated page: the rows it held are lost, the others still read.
    }
  }
  const rows: FlightRow[] = [];
  for (const line of stream.split('\n')) {
    const m = ROW.exec(line);
    if (!m) continue;
    try {
      rows.push({ id: m[1]!, tag: m[2]!, value: JSON.parse(m[3]!) as unknown });
    } catch {
      // Not JSON (a text row, a cut row): nothing to read in it.
    }
  }
  return rows;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Visits every object in `value` (iteratively: no stack to overflow). The visitor returns
 * `'skip'` to leave an object's own subtree out (a "related auctions" section, say).
 */
export function walkObjects(value: unknown, visit: (obj: Obj) => void | 'skip'): void {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (depth > MAX_DEPTH) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1 });
    } else if (isObj(v)) {
      if (visit(v) === 'skip') continue;
      const values = Object.values(v);
      for (let i = values.length - 1; i >= 0; i--) stack.push({ v: values[i], depth: depth + 1 });
    }
  }
}

/** Whether the rows carry Next's not-found error (the route called `notFound()`). */
export function hasNotFoundError(rows: FlightRow[]): boolean {
  return rows.some((r) => r.tag === 'E' && isObj(r.value) && typeof r.value.digest === 'string' && /NEXT_HTTP_ERROR_FALLBACK;404|NEXT_NOT_FOUND/.test(r.value.digest));
}
