import type { BodyKind } from '../corpus/cases.js';
import type { RawResponse } from './raw-http.js';
import { isEnvelope, parseJson, readStream } from './replies.js';

/**
 * The contract's general rule for any answer, whatever was asked: our envelope with a status
 * of the table, a success (JSON, a stream, the status page's HTML, the metrics' text), or the
 * edge's HTML (405 with `Allow`, 400 for a URL that cannot be decoded); never a 500, a stack
 * trace or a source path, never another body.
 */

/** Statuses the contract's tables allow (500 is in the table but always a defect). */
const CONTRACT_STATUSES: ReadonlySet<number> = new Set([200, 201, 400, 401, 402, 403, 404, 405, 413, 429, 502, 503, 504]);
const STACK_TRACE = /\n\s+at \S.*:\d+:\d+|node:internal|\/(?:src|plugins)\/\S+\.[jt]s\b/;

/** What the body is. */
export function shapeOf(res: RawResponse): BodyKind | 'other' {
  const type = res.header('content-type') ?? '';
  if (res.body.length === 0) return 'empty';
  if (type.startsWith('text/html')) return 'html';
  if (type.startsWith('text/event-stream')) return 'sse';
  if (type.startsWith('text/plain')) return 'text';
  if (!type.startsWith('application/json')) return 'other';
  const json = parseJson(res.text);
  if (json === undefined) return 'other';
  return isEnvelope(json) ? 'envelope' : 'json';
}

/** Everything about an answer that breaks the contract; empty when it keeps it. */
export function contractProblems(res: RawResponse, method: string): string[] {
  const problems: string[] = [];
  const shape = shapeOf(res);
  if (!CONTRACT_STATUSES.has(res.status)) problems.push(`status ${res.status} is not in the contract`);
  if (STACK_TRACE.test(res.text)) problems.push('a stack trace or source path in the body');
  // A HEAD answer is its GET's status and headers without the body.
  if (method === 'HEAD') return problems;
  if (res.status >= 200 && res.status < 300) {
    // JSON and streams; the status page and dashboard are HTML, /metrics plain text.
    if (!['json', 'sse', 'html', 'text'].includes(shape)) problems.push(`a ${res.status} with a body of kind ${shape}`);
    if (shape === 'sse') {
      const { frames, done } = readStream(res.text);
      if (!done && !isEnvelope(parseJson(frames.at(-1) ?? ''))) problems.push('a stream that ends with neither [DONE] nor our error frame');
    }
  } else if (res.status === 405) {
    if (shape !== 'html' || !res.header('allow')) problems.push('a 405 that is not the edge page with Allow');
  } else if (shape === 'envelope') {
    if (!isEnvelope(parseJson(res.text), res.status)) problems.push(`an envelope whose type does not match ${res.status}`);
  } else if (!(res.status === 400 && shape === 'html')) {
    problems.push(`a ${res.status} with a body of kind ${shape}: ${JSON.stringify(res.text.slice(0, 120))}`);
  }
  return problems;
}
