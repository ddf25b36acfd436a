/**
 * The part of autocannon 9's programmatic API the bench uses. (@types/autocannon describes
 * version 7: no `verifyBody`, and a `response` event without the client argument.)
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  /** A request as `setupRequest` gets and returns it. */
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface Options {
    url: string;
    method: 'POST';
    headers: Record<string, string>;
    body: string;
    connections: number;
    /** Seconds. */
    duration: number;
    /** Seconds before a request counts as timed out. */
    timeout: number;
    /** Called with each 2xx… body; false counts a mismatch. */
    verifyBody?: (body: string) => boolean;
    /** Requests sent in turn; `setupRequest` makes each one anew before it is sent. */
    requests?: Array<{ setupRequest?: (request: RequestParams) => RequestParams }>;
  }

  interface Result {
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    /** Seconds, as measured by autocannon. */
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Instance extends EventEmitter {
    /** `responseTime`: ms (fractional) from the request written to the last byte of the answer. */
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
    /** A socket error or a timeout of one request. */
    on(event: 'reqError', listener: (error: Error) => void): this;
  }

  function autocannon(options: Options, done: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
