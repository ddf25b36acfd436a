import { GatewayError, type Call, type JsonObject } from '../../src/plugin-api.js';
import { mintTimedId } from '../../src/toolkit/ids.js';
import type { SavedResponse, StoredResponse } from './store/responses.js';
import { inputItems } from './read.js';
import { echoMembers, echoOf } from './response.js';
import { planTools, type ToolPlan } from './tools.js';

/**
 * One call's response, shared by the reading of its request, its output and the plugin's hooks:
 * its `resp_…` id, the stored conversation it continues, and what is stored once it completes.
 * Kept in a symbol-keyed property of the call (see `Call`).
 */

/**
 * The most a stored conversation may weigh: the JSON of a response's items and of every
 * response it continues. A response that would go over is not stored (its `store` says false),
 * so continuing from it is refused like any unknown id; the request size limit and this bound
 * keep every stored row, and every conversation read back, bounded.
 */
export const MAX_STORED_BYTES = 16 * 1024 * 1024;

/** A response object's parts that change as the call goes: in progress, final, failed. */
export interface Stage {
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  output: JsonObject[];
  usage: JsonObject | null;
}

/** What the plugin stores for a response once its call completed (the key is the call's). */
export type StagedResponse = Omit<SavedResponse, 'keyId'> & { resource: string };

const TURN = Symbol('ingress-responses.turn');
const NO_SUMMARIES: ReadonlyMap<string, string> = new Map();
type WithTurn = Call & { [TURN]?: ResponsesTurn };

export class ResponsesTurn {
  /** `resp_…`, ordered by the call's admission time, so stored responses append to their table's key. */
  readonly id: string;
  /** Set with the final response when it is to be stored; written by the plugin's onComplete. */
  staged: StagedResponse | null = null;
  /** The final response was over MAX_STORED_BYTES and is not stored. */
  overBound = false;
  private keeping = false;
  /** What the connection keeps of a WebSocket call's response (see keepForConnection). */
  private kept: StagedResponse | null = null;
  private thread: readonly StoredResponse[] = [];
  /** The echo's members as JSON text (`"instructions":…,"truncation":"disabled"`), once made. */
  private echo: string | null = null;
  private threadBytes = 0;
  /** The thread's items, parsed once (read by the capability check and by the request's reading). */
  private items: JsonObject[] | null = null;
  /** The input with each `item_reference` resolved (set by the plugin when there is one). */
  private resolved: JsonObject[] | null = null;
  private plan: ToolPlan | null = null;
  /** The summaries of the compaction items in the input and the conversation, by their sealed content (compaction.ts); made only for a call with one. */
  private opened: Map<string, string> | null = null;

  constructor(private readonly call: Call) {
    this.id = mintTimedId('resp_', call.admittedAt);
  }

  /** The stored conversation this call continues (`previous_response_id`), oldest first. */
  continues(thread: readonly StoredResponse[]): void {
    this.thread = thread;
    this.threadBytes = thread.reduce((sum, response) => sum + Buffer.byteLength(response.items), 0);
    this.call.replayedInputBytes = this.threadBytes;
  }

  /** The tools as the vendor is offered them, each adjustment announced when first planned (with the body's checks). */
  tools(): ToolPlan {
    return (this.plan ??= planTools(this.call, this.call.body['tools']));
  }

  /** The request's input items, each `item_reference` replaced by the stored item it names. */
  input(): JsonObject[] {
    return this.resolved ?? inputItems(this.call.body['input']);
  }

  /** The input with its references resolved; the stored items' bytes are read by the upstream beyond the body's, like a continued conversation's. */
  resolves(input: JsonObject[], bytes: number): void {
    this.resolved = input;
    this.call.replayedInputBytes += bytes;
  }

  /** The summaries of the call's compaction items, as read. */
  get summaries(): ReadonlyMap<string, string> {
    return this.opened ?? NO_SUMMARIES;
  }

  /** The summaries to add those of the call's compaction items to, as they are opened. */
  summariesToOpen(): Map<string, string> {
    return (this.opened ??= new Map<string, string>());
  }

  /** Every item of the conversation it continues, in order: each response's input items, then its output. */
  history(): JsonObject[] {
    return (this.items ??= this.thread.flatMap((response) => {
      const { input, output } = JSON.parse(response.items) as { input: JsonObject[]; output: JsonObject[] };
      return [...input, ...output];
    }));
  }

  /**
   * The response object at a stage, as JSON text. The echo of the request's settings (half of
   * the object) is the same at every stage: it is serialised once per call.
   */
  response(stage: Stage): string {
    return this.written(stage, JSON.stringify(stage.output));
  }

  /**
   * The final response, as JSON text. What is to be stored is staged here, so that the plugin's
   * onComplete writes it before the caller hears of the response (like the ledger row): the
   * items, and the response object with an empty output (the output is in the items) for
   * `GET /v1/responses/{id}`. The output is serialised once, for both.
   */
  conclude(stage: Stage): string {
    const body = this.call.body;
    const output = JSON.stringify(stage.output);
    const stored = body['store'] !== false;
    if (!stored && !this.keeping) return this.written(stage, output);
    // The bytes of JSON.stringify({ input, output }).
    const items = `{"input":${JSON.stringify(this.input())},"output":${output}}`;
    if (this.threadBytes + Buffer.byteLength(items) > MAX_STORED_BYTES) {
      if (!stored) return this.written(stage, output);
      this.overBound = true;
      this.echo = JSON.stringify({ ...echoOf(body), store: false }).slice(1, -1);
      return this.written(stage, output);
    }
    const previous = body['previous_response_id'];
    const [head, tail] = this.around(stage);
    const staged = {
      id: this.id,
      previousId: typeof previous === 'string' ? previous : null,
      createdAt: this.call.admittedAt,
      items,
      resource: `${head}[]${tail}`,
    };
    if (stored) this.staged = staged;
    if (this.keeping) this.kept = staged;
    return head + output + tail;
  }

  /**
   * A call made over a WebSocket: its conversation is kept by the connection, stored or not
   * (`store: false` continues on the same connection), within the stored-size bound.
   */
  keepForConnection(): void {
    this.keeping = true;
  }

  /**
   * The conversation the connection keeps once the call succeeded: the one it continued, then
   * this response with the deployment that answered it (the next turn is pinned to it, as a
   * stored one is); null when it is not kept.
   */
  keptConversation(keyId: string): StoredResponse[] | null {
    return this.kept ? [...this.thread, { ...this.kept, keyId, deployment: this.call.deployment }] : null;
  }

  /** The response object with its output already as JSON text. */
  private written(stage: Stage, output: string): string {
    const [head, tail] = this.around(stage);
    return head + output + tail;
  }

  /** The response object's JSON text before its output's and after it. */
  private around(stage: Stage): [string, string] {
    const { call } = this;
    if (!call.model) throw new GatewayError(500, 'a response was written before the model was resolved');
    this.echo ??= echoMembers(call.body);
    const { status, error, incomplete_details, usage } = stage;
    const createdAt = Math.floor(call.admittedAt / 1000);
    // Set once the model has finished (completed or cut short); never before the creation (a test's clock may run behind).
    const completedAt = status === 'completed' || status === 'incomplete' ? Math.max(createdAt, Math.floor(Date.now() / 1000)) : null;
    // The members in the order of the reference API's objects; the id and status need no escaping.
    return [
      `{"id":"${this.id}","object":"response","created_at":${createdAt},"status":"${status}","completed_at":${completedAt},"error":${JSON.stringify(error)},"incomplete_details":${JSON.stringify(incomplete_details)},"model":${JSON.stringify(call.model.id)},"output":`,
      `,"usage":${JSON.stringify(usage)},${this.echo}}`,
    ];
  }
}

/** The call's response (made on first use). */
export function turnOf(call: Call): ResponsesTurn {
  const holder = call as WithTurn;
  return (holder[TURN] ??= new ResponsesTurn(call));
}
