import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import { GatewayError } from './errors.js';

export interface BodyReader {
  /** The edge's 413 from a declared Content-Length over the limit, before anything else (nothing is read). */
  checkDeclaredLength(req: IncomingMessage): void;
  /** Reads the body whole; rejects with our error (413, 400) or, for a caller who left, with the parser's. */
  read(req: IncomingMessage, res: ServerResponse): Promise<Buffer>;
}

const MIB = 1024 * 1024;

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

interface ParserError {
  type?: string;
}

/**
 * The one body reader of the API endpoints (express's raw body parser: bounded, gzip/deflate
 * inflated, bytes kept as sent; JSON is parsed later, per call). It runs only after the
 * header checks, so a caller without a valid key never makes the gateway buffer a body; an
 * `Expect: 100-continue` is answered only then, and a declared length over the limit gets its
 * 413 without a `100 Continue`.
 */
export function bodyReader(maxBytes: number): BodyReader {
  const parse = express.raw({ type: () => true, limit: maxBytes, inflate: true });
  const checkDeclaredLength = (req: IncomingMessage): void => {
    if (Number(req.headers['content-length']) > maxBytes) throw tooLarge(maxBytes);
  };
  const read = (req: IncomingMessage, res: ServerResponse): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const charsetError = unreadableCharset(req.headers['content-type']);
      if (charsetError) {
        reject(charsetError);
        return;
      }
      if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
      // body-parser works on plain Node requests; the Express types are only its signature's.
      const request = req as Request;
      parse(request, res as Response, (error?: unknown) => {
        if (!error) {
          resolve(Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));
          return;
        }
        const type = (error as ParserError).type;
        if (type === 'entity.too.large') reject(tooLarge(maxBytes));
        else if (type === 'encoding.unsupported' || type === 'charset.unsupported') reject(new GatewayError(400, `Unsupported body encoding: ${(error as Error).message}.`));
        else if (type === 'request.aborted') reject(error);
        else reject(new GatewayError(400, `The request body could not be read: ${(error as Error).message}.`, { headers: { connection: 'close' } }));
      });
    });
  return { checkDeclaredLength, read };
}
