import { existsSync, readFileSync } from 'node:fs';

/** A page of docs/ as text. */
export const readDoc = (page: string): string => readFileSync(`docs/${page}`, 'utf8');

/** The repository paths a page names in backticks (`src/…`, `plugins/…`, `test/…`, `bench/…`, `config/…`). */
export function namedPaths(text: string): string[] {
  const paths = [...text.matchAll(/`((?:src|plugins|test|bench|config)\/[\w./-]+)`/g)].map((m) => m[1] as string);
  return [...new Set(paths)];
}

/** The named paths that do not exist in the tree. */
export const missingPaths = (text: string): string[] => namedPaths(text).filter((path) => !existsSync(path));

/** The body of a page's `## heading` section, up to the next heading of that level. */
export function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const rest = text.slice(start + heading.length + 5);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}
