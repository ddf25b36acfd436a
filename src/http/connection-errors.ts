import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { htmlPage, sendHtml } from './edge.js';
import { discardUnreadUpload, lingeringClose } from './unread-upload.js';

/**
 * Every listener of the gateway (its port, and the side ports of metrics, status and the
 * dashboard) is made here, so that nothing that reaches one is answered by Node instead of the
 * edge: what Node's parser refused or timed out, an HTTP/1.1 request without `Host`, an
 * `Expect` other than `100-continue`, and `CONNECT` each get the edge's small HTML page instead
 * of Node's empty answer or a bare close, and the connection is closed within a bound even
 * while the caller keeps sending. `onContinue` takes `Expect: 100-continue` requests (else
 * Node sends the 100 and hands them to `onRequest`).
 */
export function createEdgeServer(options: ServerOptions, onRequest: Handler, onContinue?: Handler): Server {
  // Node's own Host check answers a bare 400 before any listener sees the request.
  const server = createServer({ ...options, requireHostHeader: false });
  server.on('request', hosted(onRequest));
  if (onContinue) server.on('checkContinue', hosted(onContinue));
  server.on('checkExpectation', hosted(answerExpectation));
  server.on('clientError', answerParserError);
  server.on('connect', answerConnect);
  return server;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTP/1.1 request must name its `Host` (RFC 9112, 3.2): without one it is the 400 page, checked first as Node would. */
const hosted =
  (handle: Handler): Handler =>
  (req, res) => {
    if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return handle(req, res);
    discardUnreadUpload(req, res);
    res.setHeader('connection', 'close');
    sendHtml(res, 400, 'Bad Request', 'An HTTP/1.1 request must carry a Host header.');
  };

/** What the HTTP parser refused, as the edge answers it: status, title, explanation. */
function parserRefusal(error: NodeJS.ErrnoException): [number, string, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', 'The request headers are larger than the gateway accepts.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'Payload Too Large', 'The chunk extensions of the body are larger than the gateway accepts.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'The request did not arrive in time.'];
    default:
      return [400, 'Bad Request', 'The request could not be parsed as HTTP/1.1.'];
  }
}

/** The edge's page for a refusal, with the headers that announce the close. */
function closingPage(status: number, title: string, detail: string): { page: string; headers: Record<string, string> } {
  const page = htmlPage(status, title, detail);
  return { page, headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(page)), connection: 'close' } };
}

/**
 * The page written straight to the socket (there is no response to write it through), then a
 * lingering close: our side ends at once, the connection is cut LINGER_MS later however long the
 * caller goes on sending (a close over unread bytes could reset the page away before it is read).
 */
function refuseOnSocket(socket: Duplex, status: number, title: string, detail: string): void {
  const { page, headers } = closingPage(status, title, detail);
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`HTTP/1.1 ${status} ${title}\r\n${head}\r\n${page}`);
  lingeringClose(socket);
}

/**
 * Requests Node's parser refused (bad framing, oversized headers, a client too slow to send
 * them) — also when the refusal comes in the middle of a body whose request is already being
 * handled (its response, not yet begun, carries the page). A connection that can no longer be
 * answered (reset, already closing, its response begun) is destroyed.
 */
function answerParserError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, title, detail] = parserRefusal(error);
  if (!inFlight) {
    refuseOnSocket(socket, status, title, detail);
    return;
  }
  const { page, headers } = closingPage(status, title, detail);
  inFlight.writeHead(status, headers);
  inFlight.end(page, () => socket.destroy());
}

/** `Expect: 100-continue` is served; any other expectation is refused before the body is read (417). */
function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
  discardUnreadUpload(req, res);
  sendHtml(res, 417, 'Expectation Failed', 'The gateway supports only Expect: 100-continue.');
}

/** The gateway is no proxy: `CONNECT` gets the 400 page, not a bare close (Node's answer without a listener). */
function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  // Nobody else reads this socket any more (Node's parser let it go): what still comes is discarded.
  socket.resume();
  refuseOnSocket(socket, 400, 'Bad Request', 'CONNECT is not supported: the gateway is not a proxy.');
}
