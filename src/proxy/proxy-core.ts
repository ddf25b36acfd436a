import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { createProxyServer, type ProxyServer } from 'http-proxy-3';
import type { Call } from '../chain/call.js';
import type { UpstreamRequest } from '../chain/translator.js';
import type { Deployment } from '../upstreams/deployments.js';
import { ForwardedHeaders, upstreamHeaders } from './headers.js';

/**
 * The streaming proxy core: the only module that imports http-proxy-3. It sends one upstream
 * attempt and hands back the upstream response with its body unread, so the relay can stream
 * it. The library's traps are handled here: a global error
 * listener, the body re-sent from a buffer, our own response handling, connect and header
 * timeouts, keep-alive agents, and the caller's headers curated before they are copied.
 */

export type UpstreamFailureKind = 'connect' | 'connect_timeout' | 'headers_timeout' | 'stream_idle' | 'reset' | 'caller_gone';

export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}

export interface ProxyTimeouts {
  /** Until the upstream's response headers. */
  headersMs: number;
  connectMs: number;
}

export interface ProxyOptions extends ProxyTimeouts {
  /** Caller headers that may reach an upstream (names, or prefixes ending in `*`). */
  forwardedHeaders: readonly string[];
}

interface Target {
  base: URL;
  agent: http.Agent;
}

/**
 * The attempt in flight for a caller's request, as a symbol property of the request, not a
 * WeakMap (see `callOf`).
 */
const PENDING = Symbol('gateway.pendingAttempt');
type WithAttempt = IncomingMessage & { [PENDING]?: PendingAttempt };

/** One attempt in flight; settles exactly once. */
class PendingAttempt {
  proxyReq: ClientRequest | null = null;
  settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    /** The target object of this attempt: the library's events name it, telling attempts of one request apart. */
    readonly target: URL,
    private readonly resolveHead: (res: IncomingMessage) => void,
    private readonly rejectHead: (error: UpstreamFailure) => void,
    private readonly cleanup: () => void,
    headersMs: number,
  ) {
    this.timer = setTimeout(() => this.fail(new UpstreamFailure('headers_timeout', `no response headers within ${headersMs} ms`)), headersMs);
  }

  succeed(res: IncomingMessage): void {
    if (this.settle()) this.resolveHead(res);
    else res.destroy();
  }

  fail(error: UpstreamFailure): void {
    if (!this.settle()) return;
    this.proxyReq?.destroy();
    this.rejectHead(error);
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.cleanup();
    return true;
  }
}

function describeSocketError(error: NodeJS.ErrnoException): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const code = error.code ?? 'EUNKNOWN';
  const kind = code === 'ECONNRESET' || code === 'EPIPE' ? 'reset' : 'connect';
  return new UpstreamFailure(kind, `${error.message} (${code})`, code);
}

/** A target's identity: a reload that keeps a deployment's name and base URL keeps its connections. */
const targetKey = (deployment: Deployment): string => `${deployment.family}\u0000${deployment.name}\u0000${deployment.baseUrl}`;

function newTarget(base: string): Target {
  const url = new URL(base.endsWith('/') ? base : `${base}/`);
  const options = { keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' as const };
  const agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  return { base: url, agent };
}

/** Closes an agent's idle connections; those in use close when their call is done with them. */
function retire(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

export class ProxyCore {
  private readonly proxy: ProxyServer;
  /** A target (URL and keep-alive agent) per deployment in force, and by identity for a deployment a reload replaced. */
  private targets = new Map<Deployment, Target>();
  private byKey = new Map<string, Target>();
  /** Agents of deployments a reload removed: their calls in flight finish; destroyed at close. */
  private readonly retired = new Set<http.Agent>();

  private readonly forwarded: ForwardedHeaders;

  constructor(
    deployments: readonly Deployment[],
    private readonly timeouts: ProxyOptions,
  ) {
    this.forwarded = new ForwardedHeaders(timeouts.forwardedHeaders);
    this.setDeployments(deployments);
    this.proxy = createProxyServer({ selfHandleResponse: true, ignorePath: true, changeOrigin: true, xfwd: false });
    // Without an error listener the first refused connection would kill the process.
    this.proxy.on('error', (error, req, _res, target) => this.attemptOf(req, target)?.fail(describeSocketError(error)));
    this.proxy.on('econnreset', (error, req, _res, target) => this.attemptOf(req, target)?.fail(describeSocketError(error)));
    this.proxy.on('proxyReq', (proxyReq, req, _res, options, socket) => this.onProxyReq(proxyReq, req, options.target, socket));
    this.proxy.on('proxyRes', (proxyRes, req) => {
      // The library never listens for errors on the upstream response; a reset after the
      // headers must not become an uncaught exception. The relay observes it via finished().
      proxyRes.on('error', () => undefined);
      const attempt = (req as WithAttempt)[PENDING];
      if (attempt) attempt.succeed(proxyRes);
      else proxyRes.destroy();
    });
  }

  /**
   * The deployments in force (at start and on each reload): a deployment whose name and base
   * URL stay keeps its agent and connections; a removed one's idle connections close.
   */
  setDeployments(deployments: readonly Deployment[]): void {
    const targets = new Map<Deployment, Target>();
    const byKey = new Map<string, Target>();
    for (const deployment of deployments) {
      const key = targetKey(deployment);
      const target = this.byKey.get(key) ?? byKey.get(key) ?? newTarget(deployment.baseUrl);
      targets.set(deployment, target);
      byKey.set(key, target);
    }
    for (const [key, { agent }] of this.byKey) {
      if (byKey.has(key)) continue;
      retire(agent);
      this.retired.add(agent);
    }
    this.targets = targets;
    this.byKey = byKey;
  }

  /**
   * Sends one attempt to a deployment. Resolves with the upstream response (status and headers
   * read, body not) or rejects with an UpstreamFailure. `headersMs` shortens the configured
   * header timeout (a retry gets only what is left of the request's deadline).
   */
  send(call: Call, deployment: Deployment, request: UpstreamRequest, headersMs = this.timeouts.headersMs): Promise<IncomingMessage> {
    const target = this.targets.get(deployment) ?? this.byKey.get(targetKey(deployment));
    if (!target) return Promise.reject(new UpstreamFailure('connect', `the ${deployment.family} deployment ${deployment.name} is no longer configured`));
    const { req, res } = call;
    // http-proxy-3 copies req.headers verbatim: give it the curated set for this attempt.
    req.headers = upstreamHeaders(call.callerHeaders, this.forwarded, request.headers, request.body.length) as typeof req.headers;
    const url = new URL(request.path, target.base);
    return new Promise<IncomingMessage>((resolve, reject) => {
      let stopListening = (): void => undefined;
      const attempt = new PendingAttempt(url, resolve, reject, () => stopListening(), headersMs);
      // The caller leaving ends the attempt and its upstream request (at once if already gone).
      stopListening = call.onCallerGone(() => attempt.fail(new UpstreamFailure('caller_gone', 'the caller closed the connection')));
      if (attempt.settled) return;
      (req as WithAttempt)[PENDING] = attempt;
      this.proxy.web(req, res, {
        target: url,
        agent: target.agent,
        buffer: Readable.from([request.body]),
      });
    });
  }

  /** The pending attempt an event belongs to; events of an earlier attempt of the same request are ignored. */
  private attemptOf(req: IncomingMessage, target: unknown): PendingAttempt | undefined {
    const attempt = (req as WithAttempt)[PENDING];
    return attempt && attempt.target === target ? attempt : undefined;
  }

  /** Connect timeout (the library has none): armed only while the socket is still connecting. */
  private onProxyReq(proxyReq: ClientRequest, req: IncomingMessage, target: unknown, socket: Socket): void {
    const attempt = this.attemptOf(req, target);
    if (!attempt || attempt.settled) {
      proxyReq.destroy();
      return;
    }
    attempt.proxyReq = proxyReq;
    if (!socket.connecting) return;
    const timer = setTimeout(
      () => attempt.fail(new UpstreamFailure('connect_timeout', `no connection within ${this.timeouts.connectMs} ms`)),
      this.timeouts.connectMs,
    );
    const clear = (): void => clearTimeout(timer);
    socket.once('connect', clear);
    proxyReq.once('close', clear);
  }

  close(): void {
    for (const { agent } of this.byKey.values()) agent.destroy();
    for (const agent of this.retired) agent.destroy();
  }
}
