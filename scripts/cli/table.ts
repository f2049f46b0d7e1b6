/**
 * Plain text tables for the operator CLI: a header and columns padded to their widest cell,
 * numbers right-aligned, two spaces between columns. No borders, index column or quotes
 * (console.table's), so a line reads as it is and `grep`/`awk` work on it.
 */
export type Cell = string | number | null | undefined;

/** Control characters (a crawled message may hold any) would break the table's lines. */
function cellText(cell: Cell): string {
  if (cell === null || cell === undefined) return '—';
  return String(cell).replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

export function textTable(header: string[], rows: Cell[][]): string[] {
  if (rows.length === 0) return ['(none)'];
  const texts = rows.map((r) => header.map((_, i) => cellText(r[i])));
  const widths = header.map((h, i) => Math.max(h.length, ...texts.map((t) => t[i]!.length)));
  const numeric = header.map((_, i) => rows.every((r) => typeof r[i] === 'number' || r[i] === null || r[i] === undefined) && rows.some((r) => typeof r[i] === 'number'));
  const line = (cells: string[]) => cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...texts.map(line)];
}
