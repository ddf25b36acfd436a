import type { Catalogue } from './catalogue.js';

/**
 * The "what each family supports" table of docs/vendors.md, rendered from the catalogue so that a
 * test can hold that page to config/models.yaml (test/unit/support-table.test.ts).
 */

export const SUPPORT_TABLE_START = '<!-- support-table:start (generated from config/models.yaml; test/unit/support-table.test.ts checks it) -->';
export const SUPPORT_TABLE_END = '<!-- support-table:end -->';

const mark = (yes: boolean): string => (yes ? 'yes' : '—');

export function supportTable(catalogue: Catalogue): string {
  const rows = catalogue.models.map((model) => {
    const embeddingModel = catalogue.family(model.family).embeddingModel;
    const embeddings = model.capabilities.has('embeddings') && embeddingModel ? `yes (${embeddingModel})` : '—';
    return `| ${model.family} | \`${model.id}\` | ${mark(model.capabilities.has('tools'))} | ${mark(model.capabilities.has('vision'))} | ${mark(model.capabilities.has('json'))} | ${embeddings} | ${model.maxOutputTokens} |`;
  });
  return ['| Family | Model | Tools | Images | JSON mode | Embeddings (native model) | Max output tokens |', '|---|---|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}
