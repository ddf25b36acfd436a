import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import t from 'tap';

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  // A heading's anchor, or an explicit one (`<a id="…"></a>`, for a paragraph that is not a heading).
  return new Set([
    ...[...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] as string)),
    ...[...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] as string),
  ]);
}

t.test('every relative link of the README and docs/ reaches a file, and a heading where it names one', async (t) => {
  const files = [
    'README.md',
    ...readdirSync('docs', { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ];
  let links = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string;
      if (/^(https?:|mailto:)/.test(target)) continue;
      links += 1;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : normalize(join(dirname(file), path));
      t.ok(existsSync(resolved), `${file}: ${target} exists`);
      if (anchor && resolved.endsWith('.md') && existsSync(resolved)) t.ok(anchors(resolved).has(anchor), `${file}: ${target} names a heading`);
    }
  }
  t.ok(links > 50, `${links} links checked`);
});

t.test("every docs/ page and heading the code's comments name exists", async (t) => {
  const sources = ['src', 'plugins', 'bench', 'test'].flatMap((dir) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts') && !f.includes('node_modules'))
      .map((f) => join(dir, f)),
  );
  let named = 0;
  for (const file of sources) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\bdocs\/([\w/-]+\.md)(?:#([a-z0-9-]+))?/g)) {
      const [, page, anchor] = match as unknown as [string, string, string | undefined];
      named += 1;
      const path = join('docs', page);
      t.ok(existsSync(path), `${file}: docs/${page} exists`);
      if (anchor && existsSync(path)) t.ok(anchors(path).has(anchor), `${file}: docs/${page}#${anchor} names a heading`);
    }
  }
  t.ok(named > 50, `${named} references checked`);
});
