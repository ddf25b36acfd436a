import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CapturedRequest } from '../helpers/capture-server.js';
import { CLIENT_MODELS } from '../helpers/client-gateway.js';
import { startHarness } from '../helpers/harness.js';

/**
 * Every request the real clients were seen to send (test/fixtures/client-requests/, captured by
 * test/clients/capture.ts), replayed as it was sent — headers and body, the model replaced by
 * one model of each family — must be answered, not refused; a streamed answer must run to its
 * end. The real-client tests (test/clients/*.test.ts) run the clients themselves; this one runs
 * in seconds.
 */

const DIR = 'test/fixtures/client-requests';

interface Fixture {
  client: string;
  version: string;
  kind: string;
  request: CapturedRequest;
}

const fixtures: Fixture[] = readdirSync(DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(join(DIR, dir.name))
      .filter((file) => file.endsWith('.json'))
      .map((file) => JSON.parse(readFileSync(join(DIR, dir.name, file), 'utf8')) as Fixture),
  );

/** The event that ends a stream of each format. */
const STREAM_END: Array<[RegExp, string]> = [
  [/^\/v1\/responses/, 'event: response.completed'],
  [/^\/v1\/messages/, 'event: message_stop'],
  [/^\/v1\/chat\/completions/, 'data: [DONE]'],
  // The Gemini stream has no end event: its last chunk carries the finish reason.
  [/^\/v1beta\/models\//, '"finishReason"'],
];

/** The Gemini format names the model in its path (`/v1beta/models/{model}:…`), the others in the body. */
const GEMINI_PATH = /^(\/v1beta\/models\/)[^/:]+(:.*)$/;

/**
 * Thinking blocks sent back carry the signature of the upstream that thought them (here the
 * capture server's alpha simulator); the alpha API refuses a block it did not sign, so such a
 * history cannot be replayed on alpha, where the body passes through (other families get it
 * translated, the foreign signature dropped).
 */
const carriesSignedThinking = (body: Record<string, unknown>): boolean =>
  Array.isArray(body['messages']) &&
  (body['messages'] as Array<{ content?: unknown }>).some(
    (message) =>
      Array.isArray(message.content) &&
      (message.content as Array<{ type?: string; signature?: string }>).some((block) => block.type === 'thinking' && Boolean(block.signature)),
  );

/** Likewise beta's thought signatures in a Gemini history (Gemini CLI's placeholder aside): only the simulator that signed them takes them back. */
const carriesThoughtSignature = (body: Record<string, unknown>): boolean =>
  Array.isArray(body['contents']) &&
  (body['contents'] as Array<{ parts?: Array<{ thoughtSignature?: string }> }>).some((content) =>
    (content.parts ?? []).some((part) => part.thoughtSignature !== undefined && part.thoughtSignature !== 'skip_thought_signature_validator'),
  );

/** The headers as sent, the credential (redacted in the fixture) now the test key, where the client put it. */
function headersFor(request: CapturedRequest, key: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'accept-encoding') continue; // the replay reads plain bodies; what a client accepts does not change the answer
    headers[name] = value !== '<redacted>' ? value : name === 'authorization' ? `Bearer ${key}` : key;
  }
  return headers;
}

t.test('every captured client request is answered on every family', async (t) => {
  t.ok(fixtures.length >= 20, `the corpus is there (${fixtures.length} requests)`);
  for (const client of ['codex', 'claude-code', 'gemini-cli', 'ai-sdk', 'agents-sdk', 'langchain']) {
    t.ok(
      fixtures.some((fixture) => fixture.client === client),
      `${client} has captured requests`,
    );
  }
  const h = await startHarness(t);
  const { key } = await h.createKey({ name: 'corpus' });
  for (const fixture of fixtures) {
    for (const model of CLIENT_MODELS) {
      const inPath = GEMINI_PATH.test(fixture.request.path);
      const path = inPath ? fixture.request.path.replace(GEMINI_PATH, `$1${model}$2`) : fixture.request.path;
      const body: Record<string, unknown> = { ...(fixture.request.body as Record<string, unknown>), ...(inPath ? {} : { model }) };
      const skip =
        (model.startsWith('alpha-') && carriesSignedThinking(body)) || (model.startsWith('beta-') && carriesThoughtSignature(body))
          ? 'its reasoning states are signed by the capture server: only that upstream accepts them back'
          : false;
      t.test(`${fixture.client} ${fixture.kind} on ${model}`, { skip }, async (t) => {
        const res = await fetch(`${h.origin}${path}`, {
          method: fixture.request.method,
          headers: headersFor(fixture.request, key),
          body: JSON.stringify(body),
        });
        const text = await res.text();
        t.ok(res.status >= 200 && res.status < 300, `answered ${res.status}: ${text.slice(0, 400)}`);
        if (res.status >= 300) return;
        if (body['stream'] === true || path.includes(':streamGenerateContent')) {
          const end = STREAM_END.find(([pattern]) => pattern.test(path))?.[1] ?? '';
          t.ok(end && text.includes(end), `the stream ran to its end (${end})`);
        } else {
          t.doesNotThrow(() => JSON.parse(text), 'a whole JSON answer');
        }
      });
    }
  }
});
