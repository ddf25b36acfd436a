import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import { publicAddressPolicy, type AddressPolicy } from './address-policy.js';
import { BudgetExhausted, ByteBudget, type Lease } from './byte-budget.js';

/**
 * Fetches a remote image for a vendor that takes only inline bytes, without letting a caller
 * aim the gateway at its own network (docs/vendor-formats.md#beta-remote-images): https only; every address a name
 * resolves to is checked against the policy inside the connection's own DNS lookup, so the
 * address checked is the address connected to (and the socket's peer is checked again on
 * connect); at most 3 redirects, each one checked the same way; 10 MiB per image, refused
 * from Content-Length before reading and enforced while reading; 10 s for the whole fetch.
 * With a budget, the bytes of every image being read or held are reserved from it first (the
 * declared Content-Length, else the per-image maximum): the image comes with its lease.
 */

/** Every address a name resolves to (for `family` 0: both families), as `dns.lookup` with `all: true` answers. */
export type Resolver = (hostname: string, family: number) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname, family) => dnsLookup(hostname, { all: true, family });

/** The address family a connection asks its lookup for, as a number (0: either). */
const familyNumber = (family: number | 'IPv4' | 'IPv6' | undefined): number => (family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : (family ?? 0));

export interface GuardedFetchOptions {
  policy?: AddressPolicy;
  /** Name resolution; the system's by default (tests give names an address of their choosing). */
  resolve?: Resolver;
  /** An extra trusted certificate authority (PEM), e.g. a company CA, beside Node's bundled roots. */
  ca?: string | Buffer;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** Shared by every fetch of the gateway; unlimited when not given. */
  budget?: ByteBudget;
}

export interface FetchedImage {
  mediaType: string;
  data: Buffer;
  /** The image's bytes reserved from the budget: release once they are no longer held. */
  lease: Lease;
}

/** Why an image was refused; the message is safe to show the caller. */
export class ImageFetchError extends Error {
  override readonly name = 'ImageFetchError';
}

export const IMAGE_LIMITS = { maxBytes: 10 * 1024 * 1024, timeoutMs: 10_000, maxRedirects: 3, perRequest: 8 } as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Image types recognised from their first bytes when the server does not say. */
const MAGIC: Array<[string, (b: Buffer) => boolean]> = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

function mediaTypeOf(header: string | undefined, data: Buffer): string {
  const declared = header?.split(';')[0]?.trim().toLowerCase();
  if (declared?.startsWith('image/')) return declared;
  const sniffed = MAGIC.find(([, test]) => test(data))?.[0];
  if (sniffed) return sniffed;
  throw new ImageFetchError(`the URL did not answer with an image (content type ${declared || 'none'})`);
}

const refusedAddress = (address: string): ImageFetchError =>
  new ImageFetchError(`the URL resolves to ${address}, a private, loopback, link-local or otherwise non-public address`);

export class GuardedFetcher {
  private readonly policy: AddressPolicy;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly lookup: LookupFunction;
  private readonly budget: ByteBudget;

  constructor(private readonly options: GuardedFetchOptions = {}) {
    this.policy = options.policy ?? publicAddressPolicy;
    this.maxBytes = options.maxBytes ?? IMAGE_LIMITS.maxBytes;
    this.timeoutMs = options.timeoutMs ?? IMAGE_LIMITS.timeoutMs;
    this.maxRedirects = options.maxRedirects ?? IMAGE_LIMITS.maxRedirects;
    this.budget = options.budget ?? new ByteBudget(Number.POSITIVE_INFINITY, 0);
    const resolve = options.resolve ?? systemResolver;
    // Every address of the name must be allowed, whichever one the socket would pick.
    this.lookup = (hostname, lookupOptions, callback) => {
      resolve(hostname, familyNumber(lookupOptions.family)).then(
        (addresses) => {
          const refused = addresses.find((entry) => !this.policy.allows(entry.address));
          if (refused || !addresses.length) return callback(refused ? refusedAddress(refused.address) : new ImageFetchError('the name did not resolve'), '', 0);
          if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
          const first = addresses[0] as LookupAddress;
          callback(null, first.address, first.family);
        },
        (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
      );
    };
  }

  /** Fetches one image; `cancel` abandons it (e.g. when another image of the request failed). */
  async fetch(url: string, cancel?: AbortSignal): Promise<FetchedImage> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const signal = cancel ? AbortSignal.any([controller.signal, cancel]) : controller.signal;
    try {
      let current = new URL(url);
      for (let redirects = 0; ; redirects++) {
        const res = await this.get(current, signal);
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode ?? 0) && location) {
          res.resume();
          if (redirects >= this.maxRedirects) throw new ImageFetchError(`more than ${this.maxRedirects} redirects`);
          current = new URL(location, current);
          continue;
        }
        if (res.statusCode !== 200) {
          res.resume();
          throw new ImageFetchError(`the URL answered HTTP ${res.statusCode ?? 0}`);
        }
        const { data, lease } = await this.read(res, signal);
        try {
          return { mediaType: mediaTypeOf(res.headers['content-type'], data), data, lease };
        } catch (error) {
          lease.release();
          throw error;
        }
      }
    } catch (error) {
      if (controller.signal.aborted) throw new ImageFetchError(`fetching the image took longer than ${this.timeoutMs / 1000} s`);
      if (error instanceof ImageFetchError || error instanceof BudgetExhausted) throw error;
      throw new ImageFetchError(`the image could not be fetched (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    } finally {
      clearTimeout(timer);
    }
  }

  private get(url: URL, signal: AbortSignal): Promise<IncomingMessage> {
    if (url.protocol !== 'https:') return Promise.reject(new ImageFetchError('only https image URLs can be fetched'));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A literal address skips DNS (and so the lookup hook): check it here.
    if (isIP(host) && !this.policy.allows(host)) return Promise.reject(refusedAddress(host));
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, {
        method: 'GET',
        headers: { accept: 'image/*', 'user-agent': 'model-gateway-image-fetch' },
        lookup: this.lookup,
        agent: false,
        signal,
        ...(this.options.ca ? { ca: [...rootCertificates, this.options.ca] } : {}),
      });
      req.once('socket', (socket: Socket) => {
        socket.once('connect', () => {
          const peer = socket.remoteAddress;
          if (peer && !this.policy.allows(peer)) req.destroy(refusedAddress(peer));
        });
      });
      req.once('response', resolve);
      req.once('error', reject);
      req.end();
    });
  }

  /** Reserves the image's bytes (its declared length, else the most it may be), then reads it. */
  private async read(res: IncomingMessage, signal: AbortSignal): Promise<{ data: Buffer; lease: Lease }> {
    const header = res.headers['content-length'];
    const declared = header === undefined ? Number.NaN : Number(header);
    if (declared > this.maxBytes) {
      res.destroy();
      throw this.tooLarge();
    }
    let lease: Lease;
    try {
      lease = await this.budget.acquire(Number.isFinite(declared) ? declared : this.maxBytes, signal);
    } catch (error) {
      res.destroy();
      throw error;
    }
    try {
      const data = await this.readBody(res);
      lease.shrinkTo(data.length);
      return { data, lease };
    } catch (error) {
      lease.release();
      throw error;
    }
  }

  private tooLarge(): ImageFetchError {
    return new ImageFetchError(`the image is larger than ${this.maxBytes / (1024 * 1024)} MiB`);
  }

  private readBody(res: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.maxBytes) {
          res.destroy();
          reject(this.tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      res.once('end', () => resolve(Buffer.concat(chunks, size)));
      res.once('error', reject);
      res.once('close', () => {
        if (!res.complete) reject(new ImageFetchError('the image download broke off'));
      });
    });
  }
}
