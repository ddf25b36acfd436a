import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { KeyChangeListener } from '../../src/store/postgres/key-listener.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * The key-change listener's connection, when its peer vanishes without closing (a half-open
 * socket: a host gone, a firewall dropping the flow), is noticed by its ping and made again, so
 * key changes reach the instance at once again (the listener calls onChange on every connection).
 * The vanishing is played by a TCP relay of the test's own that stops relaying without closing.
 */

t.test('a listening connection that stops answering is made again', async (t) => {
  const server = await startPostgres(t);
  const url = new URL(await server.createDatabase());
  const target = { host: url.hostname, port: Number(url.port) };
  const sockets: Socket[] = [];
  let silent = false;
  const relay = createServer((caller) => {
    const upstream = createConnection(target);
    sockets.push(caller, upstream);
    caller.on('data', (chunk) => {
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!silent) caller.write(chunk);
    });
    caller.on('error', () => upstream.destroy());
    upstream.on('error', () => caller.destroy());
    caller.on('close', () => upstream.destroy());
    upstream.on('close', () => caller.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    relay.close();
  });
  url.port = String((relay.address() as AddressInfo).port);

  let connections = 0;
  const errors: Error[] = [];
  const listener = new KeyChangeListener(
    url.toString(),
    1500,
    () => (connections += 1),
    (error) => errors.push(error),
    200,
  );
  t.teardown(() => listener.close());
  await listener.started;
  t.equal(connections, 1, 'listening');

  // The relay goes silent for the connection it carries; connections made afterwards are relayed.
  silent = true;
  const carried = sockets.length;
  const deadline = Date.now() + 10_000;
  while (sockets.length === carried && Date.now() < deadline) await sleep(50);
  silent = false;
  while (connections < 2 && Date.now() < deadline) await sleep(50);
  t.equal(connections, 2, 'the silent connection was given up and a new one listens');
  t.match(errors[0]?.message, /timeout/i, 'the unanswered ping is reported');
});
