import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { geminiBinary, refusedNote, runGemini, type CliRun } from './helpers/cli-clients.js';
import { TEXT_ONLY } from '../helpers/tool-script.js';
import { answered, CLIENT_MODELS, SIMULATED_TEXT, startClientGateway, summary, type ClientGateway } from '../helpers/client-gateway.js';

/**
 * Gemini CLI as shipped (`gemini -p`, no switch that changes what it sends the gateway), given
 * only the gateway's origin and a key (docs/clients.md#gemini-cli), kept on loopback
 * (cli-clients.ts: its own switches for statistics, telemetry and updates, an egress guard as
 * proxy), on one model of each family: a plain prompt, and a shell tool loop in which the model
 * asks for a command, Gemini CLI runs it, and the model answers from its output.
 */

const binary = geminiBinary();
const why = (gw: ClientGateway, run: CliRun): string =>
  `gemini exited ${run.code}; gateway answered: ${gw.failures().at(-1) ?? 'no error'}; gemini said: ${run.output.slice(-600)}`;

/** The chat turns of a run: the stream endpoint (Gemini CLI's utility calls, such as its next-speaker check, use generateContent). */
const turns = (rows: ReturnType<typeof summary>): ReturnType<typeof summary> => rows.filter((row) => row.endpoint === 'gemini.stream_generate_content');

if ('missing' in binary) {
  t.fail(binary.missing);
} else {
  t.test('Gemini CLI through the gateway', async (t) => {
    const gw = await startClientGateway(t);
    for (const model of CLIENT_MODELS) {
      t.test(`${model}: a plain prompt`, async (t) => {
        gw.script(TEXT_ONLY);
        const { result: run, rows } = await gw.during(() => runGemini(t, binary.file, { origin: gw.h.origin, key: gw.key, model, prompt: 'Say hello.' }));
        t.comment(refusedNote(run));
        t.equal(run.code, 0, why(gw, run));
        t.match(run.output, SIMULATED_TEXT, 'the answer is what the model said');
        t.same(turns(summary(rows)), answered(model, 'gemini.stream_generate_content', 1), 'one chat turn in the ledger');
      });

      t.test(`${model}: a shell tool loop`, async (t) => {
        gw.script({ name: 'run_shell_command', arguments: { command: 'echo made-by-gemini > made.txt && echo command-output-42' } });
        const { result: run, rows } = await gw.during(() =>
          runGemini(t, binary.file, { origin: gw.h.origin, key: gw.key, model, prompt: 'Create the file, then tell me what the command printed.' }),
        );
        t.comment(refusedNote(run));
        t.equal(run.code, 0, why(gw, run));
        const made = join(run.workDir, 'made.txt');
        t.ok(existsSync(made) && readFileSync(made, 'utf8') === 'made-by-gemini\n', 'Gemini CLI ran the command the model asked for');
        t.match(run.output, /command-output-42/, "the answer was written from the command's output");
        t.same(
          turns(summary(rows)),
          answered(model, 'gemini.stream_generate_content', 2),
          'two chat turns in the ledger: the one that asked for the command, the one that read its output',
        );
      });
    }
  });
}
