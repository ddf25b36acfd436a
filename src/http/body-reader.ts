import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request } from 'express';
import { BootError } from '../config/boot-error.js';
import { BudgetExhausted, ByteBudget, type Lease } from '../net/byte-budget.js';
import { GatewayError } from './errors.js';

/** A body read whole, and its share of the bytes all calls in progress may hold. */
export interface HeldBody {
  readonly bytes: Buffer;
  /** Gives the share back (idempotent): when the call has ended, or its caller left mid-upload. */
  release(): void;
}

export interface BodyReader {
  /** The edge's 413 from a declared Content-Length over the limit, before anything else (nothing is read). */
  checkDeclaredLength(req: IncomingMessage): void;
  /** Reads the body whole; rejects with our error (413, 400, 503) or, for a caller who left, with the parser's. */
  read(req: IncomingMessage, res: ServerResponse): Promise<HeldBody>;
}

export interface BodyLimits {
  /** One body (server.max_body_bytes). */
  maxBytes: number;
  /** All bodies of calls in progress together (server.max_body_bytes_held). */
  maxBytesHeld: number;
}

const MIB = 1024 * 1024;

/** How long a body waits for room among those held before its 503. */
export const BODY_BUDGET_WAIT_MS = 2_000;

/** The 413 of a body over the limit: decided from Content-Length before reading where possible, else while reading. */
export function tooLarge(maxBytes: number): GatewayError {
  const limit = maxBytes % MIB === 0 ? `${maxBytes / MIB} MiB` : `${maxBytes} bytes`;
  // The rest of the upload is discarded after the answer (src/http/unread-upload.ts).
  return new GatewayError(413, `The request body exceeds the ${limit} limit. Send images as remote URLs (https://…) instead of base64 data.`);
}

/** The charsets a body may declare: the gateway reads JSON as UTF-8, of which ASCII is a subset. */
const READABLE_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);

/** The 400 of a body declared in a charset the gateway does not decode (UTF-16 bytes read as UTF-8 would be garbage). */
function unreadableCharset(contentType: string | undefined): GatewayError | null {
  const declared = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (declared === undefined || READABLE_CHARSETS.has(declared)) return null;
  return new GatewayError(400, `Unsupported charset "${declared.slice(0, 40)}": send the body as UTF-8.`);
}

interface ParserError extends Error {
  type?: string;
}

/**
 * The one body reader of the API endpoints (express's raw body parser: bounded, gzip/deflate
 * inflated, bytes kept as sent; JSON is parsed later, per call). It runs only after the
 * header checks, so a caller without a valid key never makes the gateway buffer a body; an
 * `Expect: 100-continue` is answered only then, and a declared length over the limit gets its
 * 413 without a `100 Continue`.
 */
export function bodyReader({ maxBytes, maxBytesHeld }: BodyLimits): BodyReader {
  if (maxBytesHeld < maxBytes) throw new BootError(`server.max_body_bytes_held (${maxBytesHeld}) must be at least server.max_body_bytes (${maxBytes})`);
  const parse = express.raw({ type: () => true, limit: maxBytes, inflate: true });
  const budget = new ByteBudget(maxBytesHeld, BODY_BUDGET_WAIT_MS);
  const checkDeclaredLength = (req: IncomingMessage): void => {
    if (Number(req.headers['content-length']) > maxBytes) throw tooLarge(maxBytes);
  };
  const readBytes = (req: IncomingMessage, res: ServerResponse): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const charsetError = unreadableCharset(req.headers['content-type']);
      if (charsetError) {
        reject(charsetError);
        return;
      }
      if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
      // body-parser works on plain Node requests; the Express types are only its signature's.
      const request = req as Request;
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- as for the request: the Express type is only the signature's.
      parse(request, res, (error?: unknown) => {
        if (!error) {
          resolve(Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));
          return;
        }
        const failure = error as ParserError;
        if (failure.type === 'entity.too.large') reject(tooLarge(maxBytes));
        else if (failure.type === 'encoding.unsupported' || failure.type === 'charset.unsupported')
          reject(new GatewayError(400, `Unsupported body encoding: ${failure.message}.`));
        else if (failure.type === 'request.aborted') reject(failure);
        else reject(new GatewayError(400, `The request body could not be read: ${failure.message}.`, { headers: { connection: 'close' } }));
      });
    });
  // The declared length is reserved before a byte is read; what a body turns out to hold beyond
  // it (chunked, or inflated from gzip) once read.
  const read = async (req: IncomingMessage, res: ServerResponse): Promise<HeldBody> => {
    const leases: Lease[] = [];
    const release = (): void => leases.forEach((lease) => lease.release());
    try {
      const declared = Number(req.headers['content-length'] ?? 0) || 0;
      if (declared > 0) leases.push(await hold(budget, declared));
      const bytes = await readBytes(req, res);
      if (bytes.length > declared) leases.push(await hold(budget, bytes.length - declared));
      return { bytes, release };
    } catch (error) {
      release();
      throw error;
    }
  };
  return { checkDeclaredLength, read };
}

/** Bytes of the budget, or the 503 of a gateway holding all the request bodies it may. */
async function hold(budget: ByteBudget, bytes: number): Promise<Lease> {
  try {
    return await budget.acquire(bytes);
  } catch (error) {
    if (!(error instanceof BudgetExhausted)) throw error;
    const detail = `${error.message} (server.max_body_bytes_held)`;
    throw new GatewayError(503, `The gateway is holding all the request bodies it may at once: ${detail}. Retry shortly.`, { headers: { 'retry-after': '1' } });
  }
}
