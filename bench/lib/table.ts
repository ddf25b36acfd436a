/** Plain-text tables and number formats of the bench's report. */

export type Row = string[];

/** Columns padded to their widest cell: the first left-aligned, the rest right-aligned. */
export function table(header: Row[], rows: Row[]): string[] {
  const all = [...header, ...rows];
  const columns = Math.max(...all.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

export const num = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : '—');
export const ms = (value: number): string => num(value, value < 10 ? 2 : 1);
export const signedMs = (value: number): string => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(2)}` : '—');
export const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
/** `text` and its verdict; a figure that was not measured (not finite: a scenario left out) gets none. */
export const withVerdict = (text: string, value: number, met: boolean): string => (Number.isFinite(value) ? `${text} ${verdict(met)}` : text);

/** A header row with `title` over the first of `width` columns and blanks over the rest. */
export const spanning = (title: string, width: number): string[] => [title, ...Array<string>(Math.max(0, width - 1)).fill('')];
