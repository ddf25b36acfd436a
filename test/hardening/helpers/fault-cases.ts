import type { Fault } from '../../../src/simulators/faults.js';

/**
 * The upstream fault matrix: each fault a vendor simulator can deliver (src/simulators/sim-server.ts
 * `Fault`), what the caller must get through the gateway, and what the ledger must say. The
 * expectations assume one retry (GATEWAY_RETRY_MAX=1): a fault that persists is queued twice.
 */

export type Mode = 'streamed' | 'plain';

/** The prompts' replies, as the simulators plan them (src/simulators/reply-plan.ts). */
export type Words = 'plain' | 'unicode';

export type Expect =
  | { kind: 'reply'; attempts: number }
  | { kind: 'error'; status: 429 | 502 | 503 | 504; outcome: 'upstream_error' | 'timeout'; attempts: number; retryAfter?: string };

export interface FaultCase {
  name: string;
  /** Faults queued on the family's simulator, one per upstream attempt; attempts beyond them are answered normally. */
  faults: Fault[];
  words: Words;
  /** Only in these modes (both when absent). */
  modes?: Mode[];
  expect: Record<Mode, Expect>;
}

export const RETRIES = 1;

const reply = (attempts = 1): Expect => ({ kind: 'reply', attempts });
const error = (status: 429 | 502 | 503 | 504, attempts: number, outcome: 'upstream_error' | 'timeout' = 'upstream_error', retryAfter?: string): Expect => ({
  kind: 'error',
  status,
  outcome,
  attempts,
  ...(retryAfter ? { retryAfter } : {}),
});
const both = (expect: Expect): Record<Mode, Expect> => ({ streamed: expect, plain: expect });
/** A fault on every attempt the retry policy may make. */
const persistent = (fault: Fault): Fault[] => Array.from({ length: RETRIES + 1 }, () => fault);

const HTML_PAGE = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>';
const html = (status?: number): Fault => ({ rawBody: HTML_PAGE, contentType: 'text/html', ...(status ? { status } : {}) });

export const FAULT_CASES: readonly FaultCase[] = [
  { name: 'no fault (control)', faults: [], words: 'plain', expect: both(reply()) },
  { name: 'no fault, UTF-8 reply (control)', faults: [], words: 'unicode', expect: both(reply()) },
  { name: 'reset before headers, every attempt', faults: persistent({ resetBeforeHeaders: true }), words: 'plain', expect: both(error(502, 2)) },
  { name: 'reset before headers once, then an answer', faults: [{ resetBeforeHeaders: true }], words: 'plain', expect: both(reply(2)) },
  // A stream that began cannot be retried; a body read whole can.
  { name: 'reset mid-body', faults: persistent({ resetAfterFrames: 1 }), words: 'plain', expect: { streamed: error(502, 1), plain: error(502, 2) } },
  { name: 'clean close mid-body', faults: persistent({ endAfterFrames: 1 }), words: 'plain', expect: both(error(502, 1)) },
  {
    name: 'headers, then silence',
    faults: persistent({ stallAfterFrames: 0 }),
    words: 'plain',
    expect: { streamed: error(504, 1, 'timeout'), plain: error(504, 2, 'timeout') },
  },
  {
    name: 'silence mid-body',
    faults: persistent({ stallAfterFrames: 1 }),
    words: 'plain',
    expect: { streamed: error(504, 1, 'timeout'), plain: error(504, 2, 'timeout') },
  },
  { name: 'no headers at all', faults: persistent({ hang: true }), words: 'plain', expect: both(error(504, 1, 'timeout')) },
  {
    name: 'garbage JSON with 200',
    faults: persistent({ rawBody: '{"id": "x", "choices": [{"index": 0, "mess', contentType: 'application/json' }),
    words: 'plain',
    expect: both(error(502, 1)),
  },
  { name: 'a garbage frame mid-stream', faults: [{ garbageFrameAt: 2 }], words: 'plain', modes: ['streamed'], expect: both(error(502, 1)) },
  { name: 'HTML page with 200', faults: persistent(html()), words: 'plain', expect: both(error(502, 1)) },
  { name: 'HTML page with 502, every attempt', faults: persistent(html(502)), words: 'plain', expect: both(error(502, 2)) },
  { name: 'HTML page with 503, every attempt', faults: persistent(html(503)), words: 'plain', expect: both(error(503, 2)) },
  { name: 'split one byte per packet', faults: [{ split: 'bytes' }], words: 'plain', expect: both(reply()) },
  { name: 'split inside every UTF-8 character', faults: [{ split: 'utf8' }], words: 'unicode', expect: both(reply()) },
  { name: '\\r\\n line endings', faults: [{ lineEnding: '\r\n' }], words: 'unicode', modes: ['streamed'], expect: both(reply()) },
  {
    name: '\\r\\n line endings, one byte per packet',
    faults: [{ lineEnding: '\r\n', split: 'bytes' }],
    words: 'plain',
    modes: ['streamed'],
    expect: both(reply()),
  },
  { name: '\\r line endings', faults: [{ lineEnding: '\r' }], words: 'plain', modes: ['streamed'], expect: both(reply()) },
  {
    name: '429 with Retry-After beyond the deadline',
    faults: [{ status: 429, retryAfter: '30' }],
    words: 'plain',
    expect: both(error(429, 1, 'upstream_error', '30')),
  },
  { name: '5xx storm (503 on every attempt)', faults: persistent({ status: 503 }), words: 'plain', expect: both(error(503, 2)) },
  { name: '5xx storm that ends (502, then an answer)', faults: [{ status: 502 }], words: 'plain', expect: both(reply(2)) },
  { name: 'a 500 (not retried)', faults: [{ status: 500 }], words: 'plain', expect: both(error(502, 1)) },
];
