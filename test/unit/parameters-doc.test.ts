import t from 'tap';
import { categoryOf, codeOf, tableCells, tableRows } from '../helpers/param-table.js';

/**
 * docs/parameters.md lists every adjustment the gateway announces; the format tables say, cell by
 * cell, where each applies (and their tests hold them to the code). The list and the tables'
 * adjusted cells are the same set of `x-gateway-adjusted` entries.
 */

const TABLES = [
  ['docs/formats/chat.md', 'chat-params'],
  ['docs/formats/responses.md', 'responses-params'],
] as const;

/** The Messages and Gemini tables' rows start with prose as well as code: every cell of every row. */
const proseTableCells = (): string[] =>
  [
    ['docs/formats/messages.md', 'messages-params'],
    ['docs/formats/gemini.md', 'gemini-params'],
  ].flatMap(([file, marker]) => tableCells(file as string, marker as string).flatMap((cells) => cells.slice(1)));

t.test('the list of adjustments is the set of entries the format tables announce', async (t) => {
  const listed = tableCells('docs/parameters.md', 'adjustments')
    .slice(1)
    .map((cells) => codeOf(cells[0]));
  const cells = [...TABLES.flatMap(([file, marker]) => tableRows(file, marker).flatMap((row) => Object.values(row.cells))), ...proseTableCells()];
  const announced = new Set(cells.filter((cell) => categoryOf(cell) === 'adjusted').map((cell) => codeOf(cell)));
  t.same([...new Set(listed)].sort(), [...announced].sort());
  t.equal(new Set(listed).size, listed.length, 'each once');
});
