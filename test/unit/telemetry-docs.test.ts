import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { captureContent, CONTENT_LIMIT_BYTES } from '../../plugins/telemetry/content.js';

/**
 * docs/telemetry.md held to the telemetry plugin: every attribute and metric name it documents is
 * one the plugin writes, and every one the plugin writes is documented; the content bound and
 * the opt-in are the ones stated.
 */

const DOC = readFileSync('docs/telemetry.md', 'utf8');
/** The names in `text` that `quoted` captures (as its first group). */
const names = (text: string, quoted: RegExp): Set<string> => new Set([...text.matchAll(quoted)].map((match) => match[1] as string));

t.test("the attribute and metric names: the plugin's, all documented", async (t) => {
  const dir = 'plugins/telemetry';
  const code = readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
  const written = names(code, /'((?:gen_ai|gateway|http|server|error)\.[a-z_.]+)'/g);
  const documented = names(DOC, /`((?:gen_ai|gateway|http|server|error)\.[a-z_.]+)`/g);
  t.ok(written.has('gen_ai.response.id') && written.has('gen_ai.output.messages'), 'the names are read from the code');
  t.same(
    [...written].filter((name) => !documented.has(name)),
    [],
    'every name the plugin writes is documented',
  );
  t.same(
    [...documented].filter((name) => !written.has(name)),
    [],
    'every name documented is one the plugin writes',
  );
});

t.test('the content opt-in and its bound, as documented', async (t) => {
  t.equal(CONTENT_LIMIT_BYTES, 16 * 1024);
  t.match(DOC, /each attribute is at most \*\*16 KiB\*\* of UTF-8/, 'the bound stated');
  t.match(DOC, /`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`/, 'the variable named');
  t.equal(captureContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }), true, '`true` opts in');
  t.equal(captureContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: ' TRUE ' }), true, 'in any case');
  for (const value of [undefined, '', 'false', '1', 'yes']) {
    t.equal(captureContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value }), false, `${JSON.stringify(value)} is off`);
  }
});
