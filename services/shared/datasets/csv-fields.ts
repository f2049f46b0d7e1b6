/** A shared data file's cells read as untrusted text: control characters out, spaces collapsed, length bounded. */
export function csvText(value: string | undefined, max: number): string {
  return (value ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

/** `csvText`, or null when the cell is empty. */
export function csvOptional(value: string | undefined, max: number): string | null {
  const v = csvText(value, max);
  return v.length ? v : null;
}

/** A number written with or without `$`, thousands commas and spaces; null when empty or not a number. */
export function csvNumber(value: string | undefined): number | null {
  if (value === undefined) return null;
  const v = value.replace(/[,$\s]/g, '');
  if (!v.length) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
