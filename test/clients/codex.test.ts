import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { codexBinary, refusedNote, runCodex, type CodexRun } from './helpers/cli-clients.js';
import { TEXT_ONLY } from '../helpers/tool-script.js';
import { answered, CLIENT_MODELS, SIMULATED_TEXT, startClientGateway, summary, type ClientGateway } from '../helpers/client-gateway.js';

/**
 * Codex CLI as shipped (`codex exec`, no switch that changes what it sends the gateway), given
 * only the gateway's base URL and a key through its documented custom provider
 * (docs/clients.md#codex-cli), kept on loopback (cli-clients.ts: its own switches for analytics
 * and updates, an egress guard as proxy), on one model of each family: a plain prompt, and a shell tool loop in which the model asks for a command, Codex
 * runs it, and the model answers from its output.
 */

const binary = codexBinary();
const why = (gw: ClientGateway, run: CodexRun): string =>
  `codex exited ${run.code}; gateway answered: ${gw.failures().at(-1) ?? 'no error'}; codex said: ${run.output.slice(-600)}`;

if ('missing' in binary) {
  t.fail(binary.missing);
} else {
  t.test('Codex CLI through the gateway', async (t) => {
    const gw = await startClientGateway(t);
    for (const model of CLIENT_MODELS) {
      t.test(`${model}: a plain prompt`, async (t) => {
        gw.script(TEXT_ONLY);
        const { result: run, rows } = await gw.during(() => runCodex(t, binary.file, { baseURL: gw.h.baseURL, key: gw.key, model, prompt: 'Say hello.' }));
        t.comment(refusedNote(run));
        t.equal(run.code, 0, why(gw, run));
        t.equal(run.lastMessage.trim(), SIMULATED_TEXT, 'the answer is what the model said');
        t.same(summary(rows), answered(model, 'responses', 1), 'one call in the ledger');
        t.equal(rows[0]?.stream, 1, 'streamed');
      });

      t.test(`${model}: a shell tool loop`, async (t) => {
        gw.script({ name: 'exec_command', arguments: { cmd: 'echo made-by-codex > made.txt && echo command-output-42' } });
        const { result: run, rows } = await gw.during(() =>
          runCodex(t, binary.file, { baseURL: gw.h.baseURL, key: gw.key, model, prompt: 'Create the file, then tell me what the command printed.' }),
        );
        t.comment(refusedNote(run));
        t.equal(run.code, 0, why(gw, run));
        const made = join(run.workDir, 'made.txt');
        t.ok(existsSync(made) && readFileSync(made, 'utf8') === 'made-by-codex\n', 'Codex ran the command the model asked for');
        t.match(run.lastMessage, /command-output-42/, "the model's last answer was written from the command's output");
        t.same(summary(rows), answered(model, 'responses', 2), 'two calls in the ledger: the one that asked for the command, the one that read its output');
      });
    }
  });
}
