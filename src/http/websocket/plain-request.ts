import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * An upgrade request that is not one of the gateway's WebSocket endpoints (`Upgrade: h2c`, as
 * curl --http2 sends over http://, or a WebSocket upgrade of another path): served as if it had
 * asked for no upgrade — what Node does when a server has no `upgrade` listener. Its head is
 * written back without `Upgrade` (and without that token of `Connection`) in front of what
 * followed it, and the socket is handed to the server as a new connection, whose parser reads
 * the request again.
 */
export function serveAsPlainRequest(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    if (lower === 'upgrade') continue;
    if (lower === 'connection') {
      const tokens = value.split(',').filter((token) => token.trim().toLowerCase() !== 'upgrade');
      if (tokens.length > 0) lines.push(`${name}: ${tokens.join(',').trim()}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit('connection', socket);
}
