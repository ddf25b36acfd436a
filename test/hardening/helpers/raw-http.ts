import { connect } from 'node:net';

/**
 * HTTP/1.1 over a bare socket, byte for byte as given: duplicate headers, any method, any
 * request target, a Content-Encoding that lies. One request per connection (`Connection:
 * close`), so the answer ends where the connection does.
 */

export interface RawRequest {
  method: string;
  /** The request target exactly as sent, e.g. `/v1/models?x=%zz`. */
  target: string;
  /** In order, duplicates kept. Host, Connection and (with a body) Content-Length are added unless given. */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  /** Lower-cased names; every value of a repeated header. */
  headers: ReadonlyMap<string, string[]>;
  body: Buffer;
  text: string;
  header(name: string): string | undefined;
}

/** The request's bytes. */
function encode(origin: URL, request: RawRequest): Buffer {
  const headers = [...(request.headers ?? [])];
  const has = (name: string): boolean => headers.some(([n]) => n.toLowerCase() === name);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  if (!has('host')) headers.unshift(['Host', origin.host]);
  if (!has('connection')) headers.push(['Connection', 'close']);
  if (body && !has('content-length') && !has('transfer-encoding')) headers.push(['Content-Length', String(body.length)]);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Splits the bytes received into the final response (1xx interim answers skipped). */
function parse(bytes: Buffer, method: string): RawResponse {
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) throw new Error(`no complete response head in ${JSON.stringify(rest.toString('latin1').slice(0, 200))}`);
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) continue;
    const headers = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
    }
    const chunked = headers.get('transfer-encoding')?.some((v) => /chunked/i.test(v)) ?? false;
    const body = method === 'HEAD' ? Buffer.alloc(0) : chunked ? dechunk(rest) : rest;
    return { status, headers, body, text: body.toString('utf8'), header: (name) => headers.get(name.toLowerCase())?.join(', ') };
  }
}

export interface RawOptions {
  /** A hang: no complete answer within this long. */
  timeoutMs?: number;
  /** The client's own address (any of 127.0.0.0/8 on loopback), e.g. to keep one address clear of the admin lockout. */
  localAddress?: string;
}

/** Sends one request; rejects if no complete answer came within the timeout or the connection broke first. */
export function rawRequest(origin: string, request: RawRequest, options: RawOptions = {}): Promise<RawResponse> {
  const url = new URL(origin);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(url.port), host: url.hostname, ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms: ${request.method} ${request.target}`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may answer (413, 401) and close before the whole body was written: its answer counts.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      try {
        resolve(parse(Buffer.concat(chunks), request.method));
      } catch (error) {
        reject(error);
      }
    });
    // Not end(): a half-closed connection makes Node's server abort the request in flight.
    socket.write(encode(url, request));
  });
}
