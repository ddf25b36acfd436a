import type { SimRequest } from '../../src/simulators/reply-plan.js';
import type { SimContext, SimVendor } from '../../src/simulators/sim-server.js';

/**
 * Scripted tool calls for the simulators. A simulator that is offered tools calls the first one
 * with arguments sampled from its schema (reply-plan.ts), and answers text once the last turn
 * carries tool results. A client test needs one particular tool called with particular
 * arguments (Codex CLI's `exec_command {cmd}`, Claude Code's `Bash {command}`), so the request is
 * rewritten on its way into the simulator: that tool first, its schema pinned to the wanted
 * values (a one-value `enum` is what the sampler returns). Requests without that tool pass
 * unchanged, so everything else the simulator does (usage, thinking, signatures, JSON output,
 * conversation rules) stays the simulator's. An agent offers tools on every turn, so a plain
 * answer is scripted too (`TEXT_ONLY`: the request's tool choice becomes `none`).
 */

export interface ToolCallScript {
  /** The tool's name as the vendor (or the answering server) sees it. */
  name: string;
  arguments: Record<string, string | number | boolean>;
}

/** Answer in text, whatever tools are offered. */
export const TEXT_ONLY = 'text-only';

export type ToolScript = ToolCallScript | typeof TEXT_ONLY;

type Json = Record<string, unknown>;

/** A schema whose only sample is `args`. */
export const pinnedSchema = (args: ToolCallScript['arguments']): Json => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(args).map(([name, value]) => [name, { type: typeof value, enum: [value] }])),
  required: Object.keys(args),
});

/** The neutral request with the scripted tool first and pinned (unchanged if it does not offer the tool). */
export function scriptRequest(request: SimRequest, script: ToolScript | undefined): SimRequest {
  if (script === TEXT_ONLY) return { ...request, toolChoice: 'none' };
  const tool = script && request.tools.find((candidate) => candidate.name === script.name);
  if (!script || !tool) return request;
  return { ...request, tools: [{ name: tool.name, parameters: pinnedSchema(script.arguments) }, ...request.tools.filter((other) => other !== tool)] };
}

/** The vendor's tool list with the tool `script` names moved to the front, pinned by `pin`; null if it is not there. */
function pinFirst(tools: Json[], nameOf: (tool: Json) => unknown, pin: (tool: Json) => Json, script: ToolCallScript): Json[] | null {
  const tool = tools.find((candidate) => nameOf(candidate) === script.name);
  return tool ? [pin(tool), ...tools.filter((other) => other !== tool)] : null;
}

/** Each family's "call no tool". */
const NO_TOOL_CHOICE: Record<string, Json> = {
  gamma: { tool_choice: 'none' },
  alpha: { tool_choice: { type: 'none' } },
  beta: { toolConfig: { functionCallingConfig: { mode: 'NONE' } } },
};

/** A vendor request body rewritten so that its simulator calls the scripted tool (unchanged if not offered), or none. */
export function scriptVendorBody(family: string, body: Json, script: ToolScript): Json {
  if (script === TEXT_ONLY) return Array.isArray(body['tools']) ? { ...body, ...NO_TOOL_CHOICE[family] } : body;
  const tools = Array.isArray(body['tools']) ? (body['tools'] as Json[]) : [];
  const schema = pinnedSchema(script.arguments);
  let pinned: Json[] | null = null;
  if (family === 'gamma') {
    pinned = pinFirst(
      tools,
      (tool) => (tool['function'] as Json | undefined)?.['name'],
      (tool) => ({ ...tool, function: { ...(tool['function'] as Json), parameters: schema } }),
      script,
    );
  } else if (family === 'alpha') {
    pinned = pinFirst(
      tools,
      (tool) => tool['name'],
      (tool) => ({ ...tool, input_schema: schema }),
      script,
    );
  } else if (family === 'beta') {
    const declarations = tools.flatMap((tool) => (tool['functionDeclarations'] ?? []) as Json[]);
    const found = pinFirst(
      declarations,
      (declaration) => declaration['name'],
      (declaration) => {
        const { parameters: _parameters, parametersJsonSchema: _jsonSchema, ...rest } = declaration;
        return { ...rest, parametersJsonSchema: schema };
      },
      script,
    );
    if (found) pinned = [{ functionDeclarations: found }, ...tools.filter((tool) => !tool['functionDeclarations'])];
  }
  return pinned ? { ...body, tools: pinned } : body;
}

/** The vendor's simulator with its requests scripted by `script()` (read at each request; undefined: no script). */
export function scriptedVendor(vendor: SimVendor, script: () => ToolScript | undefined): SimVendor {
  const rewrite = (ctx: SimContext): SimContext => {
    const current = script();
    return current && ctx.body && typeof ctx.body === 'object' ? { ...ctx, body: scriptVendorBody(vendor.name, ctx.body as Json, current) } : ctx;
  };
  return { ...vendor, routes: vendor.routes.map((route) => ({ ...route, handle: (ctx, match) => route.handle(rewrite(ctx), match) })) };
}
