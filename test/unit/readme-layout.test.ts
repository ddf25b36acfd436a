import { existsSync, readdirSync, readFileSync } from 'node:fs';
import t from 'tap';

/** The README's layout section names every entry of src/ and every plugin folder, and nothing that is not there. */
t.test("the README's layout matches the tree", async (t) => {
  const readme = readFileSync('README.md', 'utf8');
  const layout = /## Layout\n+```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  t.ok(layout.length > 0, 'the README has a layout block');
  const srcBlock = /^src\/\n([\s\S]*?)^plugins\//m.exec(layout)?.[1] ?? '';
  const listed = [...srcBlock.matchAll(/^ {2}(\S+)/gm)].map((m) => (m[1] as string).replace(/\/$/, '')).sort();
  const present = readdirSync('src').sort();
  t.same(listed, present, 'src/: every file and folder listed, none extra');
  const pluginText = /^plugins\/\s+(.*?)^config\//ms.exec(layout)?.[1] ?? '';
  const plugins = pluginText
    .split(/[,:\n]/)
    .map((word) => word.replace(/\(.*?\)/g, '').trim())
    .filter((word) => /^[a-z][a-z-]*$/.test(word));
  const pluginDirs = readdirSync('plugins');
  for (const dir of pluginDirs) t.ok(plugins.includes(dir), `plugins/${dir} is named`);
  for (const name of plugins) {
    if (['one', 'folder', 'per', 'plugin', 'each', 'with', 'its', 'simulator'].includes(name)) continue;
    t.ok(pluginDirs.includes(name), `the named plugin ${name} exists`);
  }
  const top = [...layout.matchAll(/^(\S+?)\/?\s{2,}/gm)].map((m) => m[1] as string);
  for (const entry of top) t.ok(existsSync(entry), `${entry} exists`);
});
