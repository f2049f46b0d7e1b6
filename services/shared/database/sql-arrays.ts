/**
 * Arrays as one SQL parameter. drizzle's `sql` expands a JS array into a list of parameters
 * (`(p1, p2, …)`, and `()` when empty); these pass a PostgreSQL array literal as one text
 * parameter instead, so a query keeps one shape (and one prepared statement) whatever the count.
 */
import { sql, type SQL } from 'drizzle-orm';

/** An int[] from checked integers. */
export function intArray(values: readonly number[]): SQL {
  if (!values.every((v) => Number.isSafeInteger(v))) throw new Error('values must be integers');
  return sql`${`{${values.join(',')}}`}::int[]`;
}

/** A text[] (elements quoted, so commas, quotes and braces inside stay data), cast to `type`. */
export function textArray(values: readonly string[], type: 'text' | 'xid8' = 'text'): SQL {
  const literal = `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
  return type === 'xid8' ? sql`${literal}::xid8[]` : sql`${literal}::text[]`;
}
