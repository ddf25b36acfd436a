import type { IncomingHttpHeaders } from 'node:http';
import { createAlphaVendor } from '../../plugins/vendor-alpha/simulator.js';
import { createBetaVendor } from '../../plugins/vendor-beta/simulator.js';
import { createGammaVendor } from '../../plugins/vendor-gamma/simulator.js';
import { SimServer, type SimVendor } from '../../src/simulators/sim-server.js';
import { answerResponses, readResponsesRequest } from './responses-answerer.js';
import { scriptedVendor, scriptRequest, type ToolScript } from './tool-script.js';

/**
 * A server on loopback that stands where the gateway would, records every request a client
 * sends, and answers each of the gateway's formats validly so that the client carries on to its
 * next request: Responses (responses-answerer.ts), chat (the gamma simulator: the reference
 * format is gamma's own), Messages (the alpha simulator) and Gemini (the beta simulator: its wire). Tool calls are scripted as in the
 * client tests (tool-script.ts). What it records is the corpus of test/fixtures/client-requests/.
 */

export interface CapturedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Headers, credentials replaced by `<redacted>` (see CREDENTIAL_HEADERS). */
  headers: Record<string, string>;
  /** The JSON body (null when there was none). */
  body: unknown;
}

/** Headers that carry a credential: their values never reach a fixture. */
export const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie'];

/** Hop-by-hop and transport headers that depend on the run, not on the client: left out. */
const RUN_HEADERS = ['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive'];

function recordedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || RUN_HEADERS.includes(name)) continue;
    out[name] = CREDENTIAL_HEADERS.includes(name) ? '<redacted>' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function captureVendor(script: () => ToolScript | undefined): SimVendor {
  const alpha = scriptedVendor(createAlphaVendor(), script);
  const gamma = scriptedVendor(createGammaVendor(), script);
  const beta = scriptedVendor(createBetaVendor(), script);
  return {
    name: 'capture',
    routes: [
      {
        method: 'POST',
        pattern: /^\/v1\/responses$/,
        handle: (ctx) => {
          const body = (ctx.body ?? {}) as Record<string, unknown>;
          answerResponses(ctx.res, body, scriptRequest(readResponsesRequest(body), script()));
        },
      },
      ...gamma.routes,
      ...alpha.routes,
      ...beta.routes,
    ],
    authenticated: () => true,
    // Errors (unknown routes) in the reference envelope; the Messages routes answer their own.
    errorBody: gamma.errorBody,
  };
}

export interface CaptureServer {
  url: string;
  /** Every request so far, in order. */
  captured(): CapturedRequest[];
  close(): Promise<void>;
}

export async function startCaptureServer(script: () => ToolScript | undefined = () => undefined): Promise<CaptureServer> {
  const sim = new SimServer(captureVendor(script));
  const url = await sim.listen();
  return {
    url,
    captured: () =>
      sim.requests.map((request) => ({
        method: request.method,
        path: request.path,
        headers: recordedHeaders(request.headers),
        body: request.body ? (JSON.parse(request.body) as unknown) : null,
      })),
    close: () => sim.close(),
  };
}
