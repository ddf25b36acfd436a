import { isSettled, type CallWith, type Fact, type ResolvedCall, type SettledCall } from '../../src/chain/phases.js';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { Call } from '../../src/chain/call.js';
import { ENDPOINTS } from './endpoints.js';
import { resolvedTo } from './translate.js';
import { Chain, type LoadedPlugin } from '../../src/chain/chain.js';
import type { PluginHooks } from '../../src/chain/plugin.js';
import type { StreamTranslator, Translator, UpstreamRequest } from '../../src/chain/translator.js';
import { GatewayError } from '../../src/http/errors.js';
import { createLogger } from '../../src/log.js';
import type { DeploymentChooser, ExchangeDeps, UpstreamSender } from '../../src/pipeline/exchange.js';
import { DEFAULT_DEPLOYMENT, deploymentTable, type Deployment } from '../../src/upstreams/deployments.js';

/** Parts for unit tests of the pipeline's steps: a chain of hand-written hooks, a translator and a sender. */

export const catalogue = loadCatalogue('config/models.yaml');
export const silentLog = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
export const LIMITS = { upstreamMs: 2000, streamIdleMs: 1000 };

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A hook set as a test writes it: optionally named, with the facts its plugin would declare. */
type TestHooks = PluginHooks<Fact> & { name?: string; needs?: Fact[]; provides?: Fact[] };

export function chainOf(...hooks: TestHooks[]): Chain {
  const plugins: LoadedPlugin[] = hooks.map((h, i) => ({
    name: h.name ?? `p${i}`,
    where: `config /plugins/${i}`,
    hooks: h,
    ...(h.needs ? { needs: h.needs } : {}),
    ...(h.provides ? { provides: h.provides } : {}),
  }));
  return new Chain(plugins, silentLog);
}

/** A translator whose every answer is scripted; records what it was asked. */
export function scriptedTranslator(options: { stream?: () => StreamTranslator } = {}): Translator & { responses: Buffer[] } {
  const responses: Buffer[] = [];
  return {
    responses,
    request: (): UpstreamRequest => ({ path: 'v1/x', headers: {}, body: Buffer.from('{}') }),
    response(raw) {
      responses.push(raw);
      const json = JSON.parse(raw.toString()) as { ok?: boolean };
      if (!json.ok) throw new GatewayError(502, 'not a completion');
      return { body: raw, usage: { promptTokens: 1, completionTokens: 2 } };
    },
    stream:
      options.stream ??
      (() => {
        throw new Error('no stream scripted');
      }),
    error: (status) => new GatewayError(status === 503 ? 503 : 502, `upstream said ${status}`),
  };
}

/** A call on a detached request/response pair (for steps that never write to the caller). */
export function detachedCall(model = 'gamma-5.4', endpoint: keyof typeof ENDPOINTS = 'chat.completions', body: unknown = { model }): ResolvedCall {
  const req = { headers: {}, complete: true } as IncomingMessage;
  const res = { headersSent: false, once: () => undefined } as unknown as ServerResponse;
  return resolvedTo(new Call(ENDPOINTS[endpoint], req, res, 0, Buffer.from(JSON.stringify(body))), model);
}

/** An upstream on loopback answering each request with the next scripted (status, body); the sender asks it. */
export async function scriptedUpstream(
  t: Teardown,
  answers: Array<{ status: number; body: string; headers?: Record<string, string> }>,
): Promise<{ sender: UpstreamSender; asked: () => number }> {
  let asked = 0;
  const server: Server = createServer((_req, res) => {
    const answer = answers[Math.min(asked, answers.length - 1)] ?? { status: 500, body: '' };
    asked += 1;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  const sender: UpstreamSender = {
    send: () => new Promise((resolve, reject) => get({ host: '127.0.0.1', port, agent: false }, resolve).on('error', reject)),
  };
  return { sender, asked: () => asked };
}

export function exchangeDeps(chain: Chain, sender: UpstreamSender): ExchangeDeps {
  return { chain, proxy: sender, clock: { now: () => 0 }, log: silentLog, limits: LIMITS, deployments: singleDeployments, retryMax: 2 };
}

/** `call` with its outcome decided (`ok` unless already set): what the completion hooks receive. */
export function settled(call: Call): SettledCall {
  if (call.outcome === 'pending') call.outcome = 'ok';
  if (!isSettled(call)) throw new Error('unreachable: the outcome was just set');
  return call;
}

/** `call` as a plugin that needs the facts it was given sees it; throws if the test did not give them. */
export function withFacts<N extends Fact>(call: Call, ...facts: N[]): CallWith<N> {
  for (const fact of facts) if (call[fact] === null) throw new Error(`the test call has no ${fact}`);
  return call as CallWith<N>;
}

/** A family's one deployment in the single form, at `baseUrl` (as `upstreams.<family>: {base_url}` settles). */
export function singleDeployment(family: string, baseUrl = 'http://127.0.0.1:9'): Deployment {
  return deploymentTable({ [family]: { base_url: baseUrl } }, [family]).get(family)?.[0] as Deployment;
}

/** Each attempt goes to its family's one deployment (none when it is to be avoided); failures are not counted. */
export const singleDeployments: DeploymentChooser = {
  choose: (_call, family, _model, _now, avoid) => (avoid?.has(DEFAULT_DEPLOYMENT) ? null : singleDeployment(family)),
  failed: () => undefined,
};
