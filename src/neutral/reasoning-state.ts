import type { Call } from '../chain/call.js';
import type { SettingsStore } from '../store/store.js';
import type { NeutralRequest, Part, ReasoningState } from './request.js';
import { Seal } from './seal.js';

/**
 * A vendor's opaque reasoning state as one string a caller's format can carry and hand back
 * unchanged (Responses' `encrypted_content`, a Messages thinking block's `signature` or a
 * redacted block's `data`, a Gemini `thoughtSignature`, the chat format's `thinking_blocks`):
 * `gw2.` + the state sealed by the gateway (seal.ts) for the caller's key, with the family and
 * kind of the state and the deployment that issued it (docs/deployments.md#affinity-and-sealed-reasoning-state).
 * The caller can neither read, forge nor alter it, another key cannot replay it, and it goes back
 * only to its family, and only to the deployment that issued it.
 *
 * `gw1.` (base64url of the state, unsealed, from before deployments) is still read, for the
 * conversations callers held when the gateway was upgraded: such a state names no deployment.
 */

const SEALED = 'gw2.';
const LEGACY = 'gw1.';
const SECRET_SETTING = 'reasoning_state_secret';
/** The deployment of a call that has not chosen one (the single form of `upstreams.<family>`). */
export const DEFAULT_DEPLOYMENT = 'default';

/** What a caller's text holds: the state (sealed or legacy), `unverified` (the gateway's seal, but it does not open), or null (not the gateway's envelope). */
export type OpenedState = ReasoningState | 'unverified' | null;

const isStateTuple = (value: unknown, length: number): value is string[] =>
  Array.isArray(value) && value.length === length && value.every((item) => typeof item === 'string');

/** The seal of reasoning states, under a secret of the store shared by every instance; made once at boot, carried by every call. */
export class ReasoningSeal {
  private constructor(private readonly sealer: Seal) {}

  static async load(settings: SettingsStore): Promise<ReasoningSeal> {
    return new ReasoningSeal(await Seal.load(settings, SECRET_SETTING, 'gateway reasoning state v2', SEALED));
  }

  /** `state`, issued by `deployment`, sealed for the key `keyId`. */
  seal(keyId: string, state: ReasoningState, deployment: string): string {
    return this.sealer.seal(keyId, JSON.stringify([state.family, state.kind, state.data, deployment]));
  }

  /** The state `text` holds for the key `keyId` (see OpenedState). */
  open(keyId: string, text: string): OpenedState {
    if (this.sealer.holds(text)) {
      const opened = this.sealer.open(keyId, text);
      const value: unknown = opened === null ? null : JSON.parse(opened);
      if (!isStateTuple(value, 4)) return 'unverified';
      const [family, kind, data, deployment] = value as [string, string, string, string];
      return { family, kind, data, deployment };
    }
    return text.startsWith(LEGACY) ? legacyState(text) : null;
  }
}

function legacyState(text: string): ReasoningState | 'unverified' {
  try {
    const value: unknown = JSON.parse(Buffer.from(text.slice(LEGACY.length), 'base64url').toString('utf8'));
    if (!isStateTuple(value, 3)) return 'unverified';
    const [family, kind, data] = value as [string, string, string];
    return { family, kind, data };
  } catch {
    return 'unverified';
  }
}

function sealOf(call: Call): ReasoningSeal {
  if (!call.reasoningSeal) throw new Error('the call carries no reasoning seal (the pipeline gives every call one)');
  return call.reasoningSeal;
}

/** How a format's writer seals the states of a reply. */
export type SealState = (state: ReasoningState) => string;

/** The sealer of `call`'s reply: each state sealed for its key, with the deployment of the attempt that answered (read when the state is sealed). */
export function stateSealer(call: Call): SealState {
  return (state) => sealOf(call).seal(call.key?.id ?? '', state, call.deployment ?? DEFAULT_DEPLOYMENT);
}

/**
 * The state a caller's `text` holds, read from its request's field `param` (in the format's
 * notation, without indices: announced once per field however many states fail). One that is the gateway's but does not open (altered, another key's, another
 * database's) is never sent: it is left out of the turn, announced in `x-gateway-adjusted`
 * (`param=dropped:unverified`), or refused under `parameters: strict`.
 */
export function openReasoningState(call: Call, text: string, param: string): OpenedState {
  const opened = sealOf(call).open(call.key?.id ?? '', text);
  if (opened === 'unverified') {
    call.adjust(
      param,
      'dropped:unverified',
      `${param} holds reasoning state the gateway cannot verify (altered, or issued to another key); send it back as it was given.`,
    );
  }
  return opened;
}

/** How a format's reader opens the states of a request: openReasoningState bound to the call. */
export type OpenState = (text: string, param: string) => OpenedState;

/** The opener of `call`'s states. */
export const stateOpener =
  (call: Call): OpenState =>
  (text, param) =>
    openReasoningState(call, text, param);

/** Without a call (tests, the bench), a request that holds reasoning state cannot be read. */
export const noOpener: OpenState = () => {
  throw new Error('reading reasoning state needs the call it was sent on');
};

/** The opened state, or null for none or one left out. */
export const verifiedState = (opened: OpenedState): ReasoningState | null => (opened === 'unverified' ? null : opened);

/**
 * Pins the call to the deployment that issued the latest sealed state of its body (the last in
 * the body's bytes: every format lists its history oldest first), before a deployment is chosen.
 * One search of the body's bytes, and nothing more for a body without one.
 */
export function pinToSealedState(call: Call): void {
  const raw = call.rawJson;
  const at = raw?.lastIndexOf(`"${SEALED}`) ?? -1;
  if (!raw || at < 0) return;
  const end = raw.indexOf('"', at + 1);
  pinToReasoningState(call, raw.toString('latin1', at + 1, end < 0 ? raw.length : end));
}

/** Pins the call to the deployment that issued the state `text` seals (a stored conversation's latest); nothing for any other text. */
export function pinToReasoningState(call: Call, text: string): void {
  if (!text.startsWith(SEALED) || !call.reasoningSeal) return;
  const opened = call.reasoningSeal.open(call.key?.id ?? '', text);
  if (opened !== null && opened !== 'unverified' && opened.deployment !== undefined) call.pinnedDeployment = opened.deployment;
}

/**
 * Whether `state` may go to the attempt's deployment: a state sealed by another deployment of
 * the family would fail the vendor's check there, so it is left out of the turn (announced once
 * per call, `reasoning_state=dropped:deployment`, under `parameters: strict` too: the gateway's
 * routing left it out, not an approximation of what the caller asked). A state that names no
 * deployment (the vendor's own signature a caller brought, a legacy envelope) goes wherever the
 * call goes.
 */
export function replaysOnDeployment(call: Call, state: ReasoningState | null | undefined): boolean {
  if (state?.deployment === undefined || state.deployment === (call.deployment ?? DEFAULT_DEPLOYMENT)) return true;
  call.announce('reasoning_state', 'dropped:deployment');
  return false;
}

/**
 * The request as the attempt's deployment may be sent it: the states another deployment issued
 * are taken off their parts (replaysOnDeployment). Only a call pinned to a deployment (its
 * request or its stored conversation holds sealed state) is looked through; any other is
 * returned as it is.
 */
export function requestOnDeployment(call: Call, request: NeutralRequest): NeutralRequest {
  if (call.pinnedDeployment === null) return request;
  const kept = (state: ReasoningState | null | undefined): boolean => replaysOnDeployment(call, state);
  const stale = (part: Part): boolean => (part.type === 'reasoning' || part.type === 'tool_call') && !kept(part.state);
  if (!request.turns.some((turn) => turn.parts.some(stale))) return request;
  const turns = request.turns.map((turn) => ({
    role: turn.role,
    parts: turn.parts.map((part): Part => {
      if (!stale(part)) return part;
      if (part.type === 'reasoning') return { ...part, state: null };
      const { state: _dropped, ...call } = part as Extract<Part, { type: 'tool_call' }>;
      return call;
    }),
  }));
  return { ...request, turns };
}
