import { GatewayError, type Call, type Endpoint, type JsonObject } from '../../src/plugin-api.js';
import { firstPart, modelMemberProblem, type CallOutline, type IngressFormat, type RequestProblem } from '../../src/toolkit/ingress.js';
import { mintId } from '../../src/toolkit/ids.js';
import {
  ledgerUsage,
  stateOpener,
  type NeutralRequest,
  type Reply,
  type ReplyOutput,
  type ReplyStream,
  type TranslatedBody,
} from '../../src/toolkit/neutral.js';
import { isCompaction } from './compaction.js';
import type { CompactionSeal } from './compaction-seal.js';
import { responsesFormat } from './format.js';
import { listedInputItems } from './listed-items.js';
import { inputItems, readResponsesRequest } from './read.js';
import { responsesUsage } from './response.js';
import { checkResponsesBody } from './schema.js';
import { turnOf } from './turn.js';

/**
 * `POST /v1/responses/compact` (docs/formats/responses.md#compaction): the conversation — the
 * stored one `previous_response_id` continues, then `input` — sent to the model with a request
 * for a summary, as an ordinary call of any family (keys, allowlist, rate cap, ceiling, retries,
 * ledger, metrics; billed like any). The answer is the specification's compacted response: the
 * conversation's user messages, then one `compaction` item whose `encrypted_content` is the
 * summary sealed by the gateway (compaction-seal.ts). Sent back in a later `input`, on any
 * family, the item is read as the summary (compaction.ts).
 */

/** The parameters the specification gives the endpoint (`CompactResponseMethodPublicBody`), and the cache hints its clients add. */
const COMPACT_PARAMETERS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'previous_response_id',
  'instructions',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'service_tier',
]);

/** The longest summary asked for, in output tokens (less where the model's own limit is lower); the ceiling reserves it. */
export const SUMMARY_MAX_TOKENS = 8192;

/** What the model is asked, after the conversation. */
export const SUMMARY_REQUEST =
  'Write a summary of the conversation above for your own later use: it will replace the conversation, which you will no longer see. ' +
  'Keep every fact, decision, name, number, file, open question and task in progress that later turns may need, and what the user asked for. ' +
  'Write only the summary.';

function compactBodyProblem(body: JsonObject): RequestProblem | undefined {
  const unknown = Object.keys(body).find((member) => !COMPACT_PARAMETERS.has(member));
  if (unknown !== undefined) return { param: unknown, message: `${unknown} is not a parameter of /v1/responses/compact.` };
  return checkResponsesBody(body);
}

function outline(call: Call): CallOutline {
  return {
    model: call.body['model'] as string,
    stream: false,
    includeUsage: false,
    maxOutputTokens: SUMMARY_MAX_TOKENS,
    maxOutputParam: null,
    choices: 1,
    asks: { tools: null, json: null, image: firstPart(inputItems(call.body['input']), 'input', 'input_image') },
  };
}

function read(call: Call): NeutralRequest {
  const turn = turnOf(call);
  const input = [...turn.input(), { type: 'message', role: 'user', content: SUMMARY_REQUEST }];
  const request = readResponsesRequest(call.body, turn.history(), input, turn.tools(), turn.summaries, stateOpener(call));
  request.maxTokens = Math.min(SUMMARY_MAX_TOKENS, call.model?.maxOutputTokens ?? SUMMARY_MAX_TOKENS);
  return request;
}

const isUserMessage = (item: JsonObject): boolean => !isCompaction(item) && (item['type'] ?? 'message') === 'message' && item['role'] === 'user';

/** One compaction call's answer: the compacted response, never a stream (the endpoint takes no `stream`). */
class CompactOutput implements ReplyOutput {
  constructor(
    private readonly call: Call,
    private readonly seal: CompactionSeal,
  ) {}

  render(reply: Reply): TranslatedBody {
    const { call } = this;
    const summary = reply.choices[0]?.content;
    if (!call.key || !call.model) throw new GatewayError(500, 'a compaction was written before its key and model were known');
    if (!summary) throw new GatewayError(502, `The model '${call.model.id}' answered the compaction with no summary.`);
    const turn = turnOf(call);
    const kept = [...turn.history(), ...turn.input()].filter(isUserMessage);
    const output = [...listedInputItems(turn.id, kept), { id: mintId('cmp_'), type: 'compaction', encrypted_content: this.seal.seal(call.key.id, summary) }];
    const body = { id: turn.id, object: 'response.compaction', output, created_at: Math.floor(call.admittedAt / 1000), usage: responsesUsage(reply.usage) };
    return { body: JSON.stringify(body), usage: ledgerUsage(reply.usage) };
  }

  sink(): ReplyStream {
    // The outline never asks for a stream, and the body check refuses `stream`.
    throw new GatewayError(500, 'a compaction is never streamed');
  }
}

/** The compaction endpoint, sealing with `seal`. */
export function compactEndpoint(seal: CompactionSeal): Endpoint {
  const format: IngressFormat = {
    name: 'responses.compact',
    // Its own wire: no vendor passes its body through.
    wire: 'openai-responses-compact',
    rateLimitHeaders: 'openai',
    errors: responsesFormat.errors,
    check: (call) => modelMemberProblem(call.body) ?? compactBodyProblem(call.body),
    outline,
    read,
    output: (call) => new CompactOutput(call, seal),
  };
  return { name: 'responses.compact', path: '/v1/responses/compact', method: 'POST', upstream: true, operation: 'generate', format };
}
