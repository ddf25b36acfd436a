import { readFileSync } from 'node:fs';
import t from 'tap';
import { loadCatalogue, type Catalogue } from '../../src/catalogue/catalogue.js';

/**
 * The model-ID mapping of docs/migration.md ("Model-ID mapping") is held to the catalogue
 * (config/models.yaml): every `canonical` row is a canonical ID, every `alias` row resolves to
 * its named canonical ID and is not itself canonical, every `404` row resolves to nothing, and
 * every canonical ID and alias of the catalogue has its row.
 */

const GUIDE = 'docs/migration.md';
const START = '<!-- id-mapping:start -->';
const END = '<!-- id-mapping:end -->';
const HEADER = ['ID', 'Answer', 'Canonical ID'];
const ANSWERS = ['canonical', 'alias', '404'] as const;
type Answer = (typeof ANSWERS)[number];

/** IDs callers of other gateways are known to send; the guide must answer each of them. */
const KNOWN_FOREIGN_IDS = [
  'beta-3.1-pro-preview',
  'alpha-sonnet-4-6',
  'alpha-opus-4.7',
  'alpha-opus-4-7',
  'gamma-5.4-mini',
  'gamma-5.5',
  'beta-3.5-flash',
  'beta-2.5-pro',
];

interface Row {
  id: string;
  answer: Answer;
  /** The Canonical ID column; null when empty or a dash (the `404` rows). */
  canonical: string | null;
  /** For messages: the row as written. */
  text: string;
}

const cell = (raw: string): string =>
  raw
    .trim()
    .replace(/^`(.*)`$/, '$1')
    .trim();
const isAnswer = (value: string): value is Answer => (ANSWERS as readonly string[]).includes(value);

/** The table between the markers; throws with the line at fault when it is not a three-column table of known answers. */
function parseMapping(markdown: string): Row[] {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${GUIDE} has no table between ${START} and ${END}`);
  const lines = markdown
    .slice(start + START.length, end)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const cells = (line: string): string[] => {
    if (!line.startsWith('|') || !line.endsWith('|')) throw new Error(`not a table row: ${line}`);
    return line.slice(1, -1).split('|').map(cell);
  };
  const [header, separator, ...body] = lines;
  if (!header || JSON.stringify(cells(header)) !== JSON.stringify(HEADER))
    throw new Error(`the header must be | ${HEADER.join(' | ')} |, got ${header ?? 'nothing'}`);
  if (!separator || !cells(separator).every((c) => /^:?-{3,}:?$/.test(c)))
    throw new Error(`the second line must be the separator, got ${separator ?? 'nothing'}`);
  return body.map((line) => {
    const row = cells(line);
    if (row.length !== 3) throw new Error(`expected 3 cells: ${line}`);
    const [id, answer, canonical] = row as [string, string, string];
    if (!isAnswer(answer)) throw new Error(`Answer must be one of ${ANSWERS.join(', ')}: ${line}`);
    return { id, answer, canonical: canonical === '' || /^[—–-]$/.test(canonical) ? null : canonical, text: line };
  });
}

/** Every disagreement between the rows and the catalogue, as a sentence; none when they agree. */
function disagreements(rows: readonly Row[], catalogue: Catalogue): string[] {
  const problems: string[] = [];
  const canonicalIds = new Set(catalogue.models.map((model) => model.id));
  const seen = new Map<string, Row>();
  for (const row of rows) {
    const key = row.id.trim().toLowerCase();
    const twin = seen.get(key);
    if (twin) problems.push(`${row.id} is listed twice (${twin.text} and ${row.text})`);
    seen.set(key, row);
    const resolved = catalogue.resolve(row.id)?.id;
    switch (row.answer) {
      case 'canonical':
        if (!canonicalIds.has(row.id))
          problems.push(`${row.id} is marked canonical but is not a canonical ID of the catalogue (resolves to ${resolved ?? 'nothing'})`);
        if (row.canonical !== row.id) problems.push(`${row.id} is canonical, so its Canonical ID must be itself, not ${row.canonical ?? 'empty'}`);
        break;
      case 'alias':
        if (canonicalIds.has(row.id)) problems.push(`${row.id} is marked alias but is a canonical ID`);
        if (row.canonical === null || !canonicalIds.has(row.canonical))
          problems.push(`${row.id}: the Canonical ID ${row.canonical ?? 'empty'} is not a canonical ID of the catalogue`);
        if (resolved !== row.canonical) problems.push(`${row.id} is marked alias of ${row.canonical ?? 'nothing'} but resolves to ${resolved ?? 'nothing'}`);
        break;
      case '404':
        if (resolved !== undefined) problems.push(`${row.id} is marked 404 but resolves to ${resolved}`);
        if (row.canonical !== null) problems.push(`${row.id} is marked 404, so its Canonical ID must be —, not ${row.canonical}`);
        break;
    }
  }
  for (const model of catalogue.models) {
    const row = seen.get(model.id.toLowerCase());
    if (row?.answer !== 'canonical') problems.push(`the catalogue's model ${model.id} has no canonical row`);
    for (const alias of model.aliases) {
      const aliasRow = seen.get(alias.trim().toLowerCase());
      if (aliasRow?.answer !== 'alias') problems.push(`the catalogue's alias ${alias} (of ${model.id}) has no alias row`);
    }
  }
  return problems;
}

const catalogue = loadCatalogue('config/models.yaml');
const rows = parseMapping(readFileSync(GUIDE, 'utf8'));

t.test('the migration guide answers every model ID as the catalogue does', async (t) => {
  t.ok(rows.length > catalogue.models.length, 'the table has rows for the canonical IDs and more');
  // On a failure each sentence names the row and what the catalogue says instead.
  t.same(disagreements(rows, catalogue), [], `${GUIDE} agrees with config/models.yaml`);
  for (const row of rows) {
    const resolved = catalogue.resolve(row.id)?.id ?? null;
    const expected = row.answer === '404' ? null : row.canonical;
    t.equal(resolved, expected, `${row.id} → ${row.answer === '404' ? '404 model_not_found' : `${row.answer} ${String(row.canonical)}`}`);
  }
});

t.test('every ID callers of other gateways are known to send has a row', async (t) => {
  const listed = new Set(rows.map((row) => row.id.toLowerCase()));
  for (const id of KNOWN_FOREIGN_IDS) t.ok(listed.has(id), `${id} is in the table`);
});

t.test('the check fails when a row and the catalogue disagree', async (t) => {
  const broken = (change: (rows: Row[]) => Row[]): string[] => disagreements(change(rows.map((row) => ({ ...row }))), catalogue);
  const canonicalRow = rows.find((row) => row.answer === 'canonical') as Row;
  const aliasRow = rows.find((row) => row.answer === 'alias') as Row;
  const missingRow = rows.find((row) => row.answer === '404') as Row;
  const otherCanonical = catalogue.models.find((model) => model.id !== aliasRow.canonical)?.id as string;

  t.not(broken((r) => r.filter((row) => row !== r.find((x) => x.id === canonicalRow.id))).length, 0, 'a canonical row left out');
  t.not(broken((r) => r.map((row) => (row.id === canonicalRow.id ? { ...row, answer: 'alias' as const } : row))).length, 0, 'a canonical ID marked alias');
  t.not(broken((r) => r.map((row) => (row.id === aliasRow.id ? { ...row, canonical: otherCanonical } : row))).length, 0, 'an alias of the wrong model');
  t.not(
    broken((r) => r.map((row) => (row.id === aliasRow.id ? { ...row, answer: '404' as const, canonical: null } : row))).length,
    0,
    'a known alias marked 404',
  );
  t.not(
    broken((r) => r.map((row) => (row.id === missingRow.id ? { ...row, answer: 'alias' as const, canonical: canonicalRow.id } : row))).length,
    0,
    'an unknown ID marked alias',
  );
  t.not(broken((r) => [...r, { ...canonicalRow }]).length, 0, 'a row listed twice');
  t.throws(
    () => parseMapping(`${START}\n| ID | Answer | Canonical ID |\n|---|---|---|\n| \`x\` | maybe | — |\n${END}`),
    /Answer must be one of/,
    'an unknown answer',
  );
  t.throws(() => parseMapping('no table here'), /no table between/, 'no markers');
});
