import type { Server, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import t from 'tap';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';

/**
 * The simulators answer `npm start` without vendor credentials: a streamed reply to a caller
 * that does not read is written as the caller takes it, so the simulator holds one buffer's
 * worth per stream, not the whole reply.
 */

t.test('a long stream to a caller that never reads stays bounded in what the simulator buffers', async (t) => {
  const sim = createGammaSimulator();
  await sim.listen();
  t.teardown(() => sim.close());
  // The response the simulator writes to, watched from here (its server is private).
  let response: ServerResponse | undefined;
  (sim as unknown as { server: Server }).server.on('request', (_req, res: ServerResponse) => (response = res));

  const body = JSON.stringify({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'Hello [[sim:tokens=100000]]' }] });
  const { port } = new URL(sim.url);
  const socket = connect(Number(port), '127.0.0.1');
  t.teardown(() => socket.destroy());
  socket.on('error', () => undefined);
  socket.pause(); // never reads
  socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);

  // A second (bounded) for the simulator to write all it will while nobody reads.
  let most = 0;
  for (const started = Date.now(); Date.now() - started < 1_000;) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    most = Math.max(most, response?.writableLength ?? 0);
  }
  t.ok(response, 'the stream began');
  t.ok(most < 256 * 1024, `at most ${most} bytes buffered (the whole reply is over 20 MB)`);

  socket.destroy();
  const deadline = Date.now() + 3_000;
  while (sim.openRequests > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(sim.openRequests, 0, 'the stream ended when the caller left');
});
