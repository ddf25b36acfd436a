import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { claudeBinary, refusedNote, runClaude, type CliRun } from './helpers/cli-clients.js';
import { TEXT_ONLY } from '../helpers/tool-script.js';
import { answered, CLIENT_MODELS, SIMULATED_TEXT, startClientGateway, summary, type ClientGateway } from '../helpers/client-gateway.js';

/**
 * Claude Code as shipped (`claude -p`, no switch that changes what it sends the gateway), given
 * only the gateway's origin, a key and a model (docs/clients.md#claude-code), kept on loopback
 * (cli-clients.ts: its own switches for telemetry and updates, an egress guard as proxy), on one
 * model of each family: a plain prompt, and a Bash tool loop in which the model asks for a command,
 * Claude Code runs it, and the model answers from its output.
 */

const binary = claudeBinary();
const why = (gw: ClientGateway, run: CliRun): string =>
  `claude exited ${run.code}; gateway answered: ${gw.failures().at(-1) ?? 'no error'}; claude said: ${run.output.slice(-600)}`;

if ('missing' in binary) {
  t.fail(binary.missing);
} else {
  t.test('Claude Code through the gateway', async (t) => {
    const gw = await startClientGateway(t);
    for (const model of CLIENT_MODELS) {
      t.test(`${model}: a plain prompt`, async (t) => {
        gw.script(TEXT_ONLY);
        const { result: run, rows } = await gw.during(() => runClaude(t, binary.file, { origin: gw.h.origin, key: gw.key, model, prompt: 'Say hello.' }));
        t.comment(refusedNote(run));
        t.equal(run.code, 0, why(gw, run));
        t.match(run.output, SIMULATED_TEXT, 'the result is what the model said last');
        t.same(summary(rows), answered(model, 'messages', 1), 'one call in the ledger');
      });

      t.test(`${model}: a Bash tool loop`, async (t) => {
        gw.script({ name: 'Bash', arguments: { command: 'echo made-by-claude > made.txt && echo command-output-42' } });
        const { result: run, rows } = await gw.during(() =>
          runClaude(t, binary.file, { origin: gw.h.origin, key: gw.key, model, prompt: 'Create the file, then tell me what the command printed.' }),
        );
        t.comment(refusedNote(run));
        t.equal(run.code, 0, why(gw, run));
        const made = join(run.workDir, 'made.txt');
        t.ok(existsSync(made) && readFileSync(made, 'utf8') === 'made-by-claude\n', 'Claude Code ran the command the model asked for');
        t.match(run.output, /command-output-42/, "the result was written from the command's output");
        t.same(summary(rows), answered(model, 'messages', 2), 'two calls in the ledger: the one that asked for the command, the one that read its output');
      });
    }
  });
}
