import type { JsonObject } from '../chain/call.js';
import { invalidRequest } from '../http/errors.js';

/**
 * The neutral request: what every ingress format (the reference chat format, the Responses
 * API, the Messages format) is read into, and what every vendor translator writes its vendor's
 * request from. The message-sequence rules every vendor needs are already applied by the reader
 * (docs/vendor-formats.md#message-sequence-normalisation): system text hoisted, turns that
 * alternate user/assistant, every tool call answered in the very next turn.
 */

export type ImageSource = { kind: 'data'; mediaType: string; data: string } | { kind: 'url'; url: string };

/**
 * A vendor's opaque reasoning state, carried through any format and handed back unchanged on
 * the next turn: alpha's thinking `signature` (kind `signature`) or a redacted block's `data`
 * (kind `redacted`), beta's `thoughtSignature` (kind `thought_signature`). `family` names the
 * vendor that issued it: a state from another family is never sent to a vendor. `deployment`
 * names the upstream deployment that issued it, when the gateway sealed it (absent for a vendor's
 * own state a caller brought, or a legacy envelope): it goes back only there.
 */
export interface ReasoningState {
  family: string;
  kind: string;
  data: string;
  deployment?: string;
}

/**
 * A prompt-cache breakpoint the caller set (alpha's `cache_control`, a Responses part's
 * `prompt_cache_breakpoint`): the prompt up to and including what carries it is cached, for
 * `ttl` (`5m`, `1h`; null: the vendor's default, 5 minutes). Only alpha acts on it; the other
 * families cache on their own (docs/caching.md).
 */
export interface CacheBreakpoint extends Asked {
  ttl: '5m' | '1h' | null;
}

export type Part = (
  | { type: 'text'; text: string }
  | { type: 'image'; source: ImageSource; /** where the caller put it, e.g. `messages[i].content[j]` */ param: string }
  | { type: 'tool_call'; id: string; name: string; args: JsonObject; /** beta's signature of this call, when known */ state?: ReasoningState }
  | { type: 'tool_result'; id: string; name: string; content: string; isError?: boolean }
  /** Reasoning the model showed on an earlier assistant turn (thinking text), with the state to replay. */
  | { type: 'reasoning'; text: string; state: ReasoningState | null }
) & {
  /** A cache breakpoint after this part (never on reasoning: the vendor caches thinking with its turn). */
  cache?: CacheBreakpoint;
};

export interface Turn {
  role: 'user' | 'assistant';
  parts: Part[];
}

/** A setting the caller asked for, with the parameter that asked (named in a 400 by a vendor that cannot honour it). */
export interface Asked {
  param: string;
}

/**
 * Strict adherence to a schema, with the parameter that asked. `implied`: not asked in so many
 * words but the format's default, strict when the schema is strict-compatible (a Responses
 * function tool without `strict`, a Messages `output_config.format`): only gamma, whose format
 * defines that default, acts on it (docs/vendor-formats.md#structured-outputs).
 */
export type StrictAsk = Asked & { implied?: true };

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments, if given. */
  parameters?: JsonObject;
  /** Strict adherence of the arguments to `parameters` (chat `tools[i].function.strict`, Responses `tools[i].strict`, Messages `tools[i].strict`). */
  strict?: StrictAsk;
  /** A cache breakpoint after this tool (the tools come first in alpha's prompt). */
  cache?: CacheBreakpoint;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** JSON output, with the parameter that asked for it (chat `response_format`, Responses `text.format`). */
export type ResponseFormat = Asked &
  (
    | { type: 'json_object' }
    | {
        type: 'json_schema';
        name: string;
        schema: JsonObject;
        /** Strict adherence to `schema` (chat `response_format.json_schema.strict`, Responses `text.format.strict`). */
        strict?: StrictAsk;
        /** What the format is for, as the caller described it to the model (Responses `text.format.description`). */
        description?: Asked & { text: string };
      }
  );

/** The reasoning efforts the formats name, least to most. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * What the caller asked of the model's reasoning (null: nothing asked, the vendor's default):
 * an effort (chat `reasoning_effort`, Responses `reasoning.effort`, Messages adaptive thinking
 * with an effort), or an explicit budget of thinking tokens (Messages `thinking.budget_tokens`),
 * or off. Each vendor maps it by the model's catalogue entry (src/neutral/reasoning.ts, docs/reasoning.md).
 */
export type ReasoningRequest = (
  | { kind: 'effort'; effort: ReasoningEffort; /** the parameter it came from, named in refusals */ param: string }
  | { kind: 'budget'; tokens: number; param: string }
  | { kind: 'off'; param: string }
) & {
  /** The model may think, but its thinking text is not to be returned (Messages `thinking.display: "omitted"`). */
  omitted?: boolean;
  /** Asked only of a model that reasons: one that does not answers without (Messages adaptive thinking, where the model decides). */
  ifReasoning?: boolean;
};

export interface NeutralRequest {
  system: string[];
  /** Cache breakpoints after system texts, by their index in `system`; absent when none was set. */
  systemCache?: ReadonlyMap<number, CacheBreakpoint>;
  /** Automatic caching: a breakpoint after the prompt's last block (Messages' top-level `cache_control`, a Responses or chat `prompt_cache_key`). */
  cache?: CacheBreakpoint;
  turns: Turn[];
  maxTokens: number | null;
  temperature: number | null;
  topP: number | null;
  /** Messages `top_k`; the reference formats have none. */
  topK: number | null;
  stop: string[];
  n: number;
  seed: number | null;
  /** An end-user identifier (chat `user`, Responses `safety_identifier`/`user`, Messages `metadata.user_id`). */
  user: string | null;
  presencePenalty: number | null;
  frequencyPenalty: number | null;
  logprobs: boolean;
  topLogprobs: number | null;
  tools: ToolSpec[];
  toolChoice: ToolChoice | null;
  parallelToolCalls: boolean;
  responseFormat: ResponseFormat | null;
  reasoning: ReasoningRequest | null;
  /**
   * The caller's own names of sampling fields where its format's differ from the reference
   * format's (the Gemini format's `generationConfig.topK` for `top_k`), for a vendor's refusals and
   * adjustments; a field not listed goes by its reference name.
   */
  params?: Partial<Record<SamplingField, string>>;
}

/** The sampling fields a vendor may refuse or adjust by name. */
export type SamplingField = 'temperature' | 'topP' | 'topK' | 'stop' | 'seed' | 'presencePenalty' | 'frequencyPenalty';

/**
 * Two tools of one name cannot be told apart in the model's calls: the vendors refuse them, and so
 * does the gateway, before any upstream call, naming the second. `reserved` is a name the vendor's
 * translation gives a tool of its own (alpha's JSON output), which no tool of the caller may take.
 */
export function refuseToolNameClash(request: NeutralRequest, reserved: string | null = null): void {
  const seen = new Set<string>();
  request.tools.forEach((tool, i) => {
    if (tool.name === reserved)
      throw invalidRequest(`tools[${i}] is named '${reserved}', which this model's JSON output uses for a tool of its own: rename the tool.`, `tools[${i}]`);
    if (seen.has(tool.name)) throw invalidRequest(`tools[${i}] is named '${tool.name}' like an earlier tool: tool names must be unique.`, `tools[${i}]`);
    seen.add(tool.name);
  });
}
