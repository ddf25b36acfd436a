import { readFileSync } from 'node:fs';
import type { Test } from 'tap';

/** A family's column in a format's parameter table (docs/formats/*.md). */
export type Family = 'alpha' | 'beta' | 'gamma';

/** The lines of the table between `<!-- {marker}:start -->` and `<!-- {marker}:end -->` in a doc, each as its trimmed cells (the header first, the rule left out). */
export function tableCells(file: string, marker: string): string[][] {
  const doc = readFileSync(file, 'utf8');
  const table = doc.split(`<!-- ${marker}:start -->`)[1]?.split(`<!-- ${marker}:end -->`)[0] ?? '';
  return table
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('|---'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** The first code span of a cell. */
export const codeOf = (cell: string | undefined): string => /`([^`]+)`/.exec(cell ?? '')?.[1] ?? '';

/** A parameter table's rows: the parameter (its first code span) and each family's cell. */
export function tableRows(file: string, marker: string): Array<{ key: string; cells: Record<Family, string> }> {
  return tableCells(file, marker)
    .filter((cells) => cells[0]?.startsWith('`'))
    .map((cells) => ({ key: codeOf(cells[0]), cells: { alpha: cells[1] ?? '', beta: cells[2] ?? '', gamma: cells[3] ?? '' } }));
}

/** What a cell says the gateway does: mapped, passed through, refused, accepted, no effect, or adjusted. */
export const categoryOf = (cell: string): string => /^(mapped|passed through|refused|accepted, no effect|adjusted)/.exec(cell)?.[1] ?? `unknown: ${cell}`;

/**
 * The `x-gateway-adjusted` entry an adjusted cell announces, as a pattern: its first code span
 * (`tools[i]=omitted:<type>`), an index `[i]` standing for any index and `<…>` for any value.
 */
export function announcedPattern(cell: string): RegExp {
  const template = codeOf(cell);
  const source = template
    .split(/(\[i\]|<[^>]+>)/)
    .map((piece) => (piece === '[i]' ? '\\[\\d+\\]' : /^<[^>]+>$/.test(piece) ? '[^,]+' : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * An adjusted cell held to the gateway: answered, and announced in `x-gateway-adjusted` with the
 * entry of `param` the cell gives. Returns that entry (its parameter is what strict mode names).
 */
export function adjustedAsSaid(t: Test, where: string, got: { status: number; adjusted: string | null }, param: string, cell: string): void {
  t.equal(got.status, 200, `${where}: answered`);
  const entry = (got.adjusted ?? '').split(', ').find((one) => one.startsWith(`${param}=`));
  t.match(entry ?? `(no ${param} in '${got.adjusted ?? ''}')`, announcedPattern(cell), `${where}: announced as the table says`);
}

/** A refused cell held to the gateway: a 400 naming the parameter, and no upstream request. */
export function refusedAsSaid(t: Test, where: string, got: { status: number; json: unknown; upstream: unknown }, param: string): void {
  t.equal(got.status, 400, where);
  t.match(got.json, { error: { type: 'invalid_request', param } }, `${where}, naming it`);
  t.equal(got.upstream, null, `${where}, no upstream request`);
}

const FAMILIES: readonly Family[] = ['alpha', 'beta', 'gamma'];

/** Every cell of a table, row by row and family by family, with the row's probe, the body it sends for that family and a label. */
export function cellsOf<B, P extends { body: B | ((family: Family) => B) }>(
  rows: ReturnType<typeof tableRows>,
  probes: Readonly<Record<string, P>>,
): Array<{ row: string; family: Family; cell: string; category: string; probe: P; body: B; where: string }> {
  return rows.flatMap(({ key: row, cells }) =>
    FAMILIES.map((family) => {
      const probe = probes[row] as P;
      const category = categoryOf(cells[family]);
      const body = typeof probe.body === 'function' ? (probe.body as (family: Family) => B)(family) : probe.body;
      return { row, family, cell: cells[family], category, probe, body, where: `${row} [${family}]: ${category}` };
    }),
  );
}

/** The value at a dotted path (`a.b[0].c`) in a value: the upstream field a mapped cell names. */
export function fieldAt(value: unknown, path: string): unknown {
  return path
    .split(/[.[\]]/)
    .filter(Boolean)
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}
