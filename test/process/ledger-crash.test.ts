import OpenAI from 'openai';
import t from 'tap';
import { admin, gatewayProcesses } from '../helpers/gateway-processes.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

t.test('SIGKILL under load: every answered call is in the ledger, no reservation survives the restart', async (t) => {
  const { db, start } = await gatewayProcesses(t, 15);
  const first = start();
  const origin = await first.ready;
  const { id, key } = (await admin(origin, 'POST', '/keys', { name: 'load', monthly_ceiling_usd: '100.00' })) as { id: string; key: string };
  const client = new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0, timeout: 10_000 });

  // Six callers in a loop of streamed and plain calls (~150 ms each, most of it upstream), until the process dies.
  let answered = 0;
  let dead = false;
  const worker = async (n: number): Promise<void> => {
    for (let i = 0; !dead && i < 500; i++) {
      try {
        if ((n + i) % 2) {
          const stream = await client.chat.completions.create({ model: 'gamma-5.4', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
          for await (const _chunk of stream) {
            // to [DONE]: only then is the call answered
          }
        } else {
          await client.chat.completions.create({ model: 'gamma-5.2', max_tokens: 10, messages: [{ role: 'user', content: 'x [[sim:delay_ms=150]]' }] });
        }
        answered += 1; // also an answer read from the socket after the kill: it was sent before
      } catch {
        return; // the gateway is gone
      }
    }
  };
  const workers = Promise.all(Array.from({ length: 6 }, (_, n) => worker(n)));
  const deadline = Date.now() + 10_000;
  while (answered < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  first.kill('SIGKILL');
  dead = true;
  await first.exited;
  await workers;
  const seen = answered;
  t.ok(seen >= 30, `${seen} calls answered`);

  const crashed = openLedgerDb(db);
  const heldAtCrash = crashed.reservations();
  const rowsAtCrash = crashed.rows(id).filter((row) => row.outcome === 'ok').length;
  crashed.close();
  t.ok(heldAtCrash > 0, `${heldAtCrash} reservations were held by calls in flight when the process died`);
  t.ok(rowsAtCrash >= seen, `the ledger holds ${rowsAtCrash} answered calls, at least the ${seen} the callers saw`);

  const second = start();
  const again = await second.ready;
  const usage = (await admin(again, 'GET', `/keys/${id}/usage`)) as {
    totals: { requests: number; cost_usd: string };
    cycle: { reserved_usd: string; spent_usd: string };
  };
  t.equal(usage.cycle.reserved_usd, '0.00', 'no reservation survives the restart');
  t.ok(usage.totals.requests >= seen, 'usage after the restart counts them');
  t.equal(usage.cycle.spent_usd, usage.totals.cost_usd, 'spend equals the sum of the rows');
  const after = openLedgerDb(db);
  t.equal(after.reservations(), 0);
  after.close();
  t.match(second.output(), /released spend reservations left by an earlier run/, 'the release is logged');
  second.kill('SIGTERM');
  t.equal(await second.exited, 0);
});
