import { readFileSync } from 'node:fs';
import t from 'tap';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { SUPPORT_TABLE_END, SUPPORT_TABLE_START, supportTable } from '../../src/catalogue/support-table.js';

t.test("the support table of docs/vendors.md is the catalogue's", async (t) => {
  const readme = readFileSync('docs/vendors.md', 'utf8');
  const start = readme.indexOf(SUPPORT_TABLE_START);
  const end = readme.indexOf(SUPPORT_TABLE_END);
  t.ok(start >= 0 && end > start, 'docs/vendors.md has the generated table between its markers');
  const written = readme.slice(start + SUPPORT_TABLE_START.length, end).trim();
  const expected = supportTable(loadCatalogue('config/models.yaml'));
  // On a mismatch, the expected table is printed in the diff: paste it into docs/vendors.md.
  t.equal(written, expected, 'docs/vendors.md matches config/models.yaml');
  t.match(expected, /\| alpha \| `alpha-sonnet-4\.6` \| yes \| yes \| yes \| — \|/, 'alpha: no embeddings');
  t.match(expected, /\| beta \| `beta-3\.1-pro` \| yes \| yes \| yes \| yes \(beta-embedding-001\) \|/);
});
