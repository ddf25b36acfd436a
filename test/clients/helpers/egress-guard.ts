import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What keeps a client the tests start on loopback: a proxy on 127.0.0.1 that refuses every
 * request and records which host it was for. The client is given it as its HTTP(S) proxy, with
 * loopback exempted (`NO_PROXY`), so that it reaches the gateway directly and anything else it
 * tries (update checks, analytics, plugin syncs) ends here instead of on the network. Clients
 * honour these variables (curl's convention; Codex's HTTP stack and Claude Code's runtime read
 * them): a host that reaches the guard is not resolved by the client itself.
 */

export interface EgressGuard {
  /** The proxy variables, in upper and lower case, and `NO_PROXY` for loopback. */
  env: Record<string, string>;
  /** `host:port` of every request refused so far, in order. */
  refused(): string[];
  close(): Promise<void>;
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY'];
/** What goes direct: the gateway and the simulators, all on loopback. */
export const LOOPBACK_HOSTS = '127.0.0.1,localhost';

/** `host:port` of a plain-HTTP proxy request (an absolute URL), or its Host header. */
function targetOf(url: string | undefined, host: string | undefined): string {
  try {
    const parsed = new URL(url ?? '');
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return host ?? '';
  }
}

export async function startEgressGuard(): Promise<EgressGuard> {
  const refused: string[] = [];
  const server = createServer((req, res) => {
    refused.push(targetOf(req.url, req.headers.host));
    res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end('outside traffic refused by the test\n');
  });
  // HTTPS goes through CONNECT: refused before any byte reaches the host.
  server.on('connect', (req, socket) => {
    refused.push(req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env: Record<string, string> = { NO_PROXY: LOOPBACK_HOSTS, no_proxy: LOOPBACK_HOSTS };
  for (const name of PROXY_VARIABLES) {
    env[name] = proxy;
    env[name.toLowerCase()] = proxy;
  }
  return {
    env,
    refused: () => [...refused],
    close: () =>
      new Promise((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
