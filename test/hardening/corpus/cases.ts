import type { Credential } from '../helpers/probe-gateway.js';

/** The shape of a corpus case, and the builders the corpus files share. */

/** How the answer's body must look: our envelope, an HTML page, a JSON success, an SSE stream, plain text (metrics), nothing (HEAD). */
export type BodyKind = 'envelope' | 'html' | 'json' | 'sse' | 'text' | 'empty';

export interface CorpusCase {
  name: string;
  method: string;
  target: string;
  /** The credential sent as `Authorization: Bearer …` (none if absent). */
  auth?: Credential;
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  expect: { status: number; body: BodyKind; code?: string; param?: string | null };
}

export const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
/** A chat body for gamma-5.4 (a two-token reply), with fields added or replaced. */
export const chat = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi [[sim:tokens=2]]' }], ...extra });
/** Arrays nested `depth` deep. */
export const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

export const bad = (status: number, code?: string, param?: string | null): CorpusCase['expect'] => ({
  status,
  body: 'envelope',
  ...(code ? { code } : {}),
  ...(param !== undefined ? { param } : {}),
});
export const ok = (body: BodyKind = 'json'): CorpusCase['expect'] => ({ status: 200, body });
export const html = (status: number): CorpusCase['expect'] => ({ status, body: 'html' });

/** Any method and target, with a credential (the valid key unless another or `null` is named). */
export const call = (
  name: string,
  method: string,
  target: string,
  expect: CorpusCase['expect'],
  body?: string,
  auth: Credential | null = 'key',
): CorpusCase => ({
  name,
  method,
  target,
  ...(auth ? { auth } : {}),
  headers: [JSON_TYPE],
  ...(body !== undefined ? { body } : {}),
  expect,
});
