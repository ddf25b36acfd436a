import { createHash } from 'node:crypto';
import { invalidRequest, type Call, type JsonObject } from '../../src/plugin-api.js';
import { objectSchema } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';
import type { ToolSpec } from '../../src/toolkit/neutral.js';

/**
 * The `tools` of a Responses request as the vendors are offered them ("Clients as shipped",
 * docs/formats/responses.md#tools): function tools as they are; the function tools of a
 * `namespace` tool flattened into function tools of their own, and their calls named back;
 * a hosted or freeform tool (`web_search`, `custom`, …), which no family here runs, not offered
 * and announced (`tools[3]=omitted:web_search`); a deferred function tool (`defer_loading`)
 * offered at once and announced (`tools[2]=offered:deferred`). Each adjustment is refused
 * instead under `parameters: strict` (Call.adjust).
 */

/** A function of a namespace tool, as the caller named it. */
export interface NamespacedName {
  namespace: string;
  name: string;
}

export interface ToolPlan {
  /** What the vendor is offered, in the caller's order. */
  offered: ToolSpec[];
  /** The flattened name of each namespaced function offered → its namespace and name. */
  namespaced: ReadonlyMap<string, NamespacedName>;
}

/** The strictest of the vendors' rules for a function's name (alpha and gamma; beta takes more). */
const VENDOR_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The name a namespace's function is offered under: `namespace__name` when that is a name every
 * vendor takes, else its allowed characters cut to 55, then `_` and 8 hex digits of a hash of
 * both names (so it stays one per pair). A function of the name alone would clash across
 * namespaces; a name made the same way from the same pair is the same on every turn, so a
 * replayed call finds its tool.
 */
export function flattenedName(namespace: string, name: string): string {
  const joined = `${namespace}__${name}`;
  if (VENDOR_NAME.test(joined)) return joined;
  const hash = createHash('sha256').update(`${namespace}\0${name}`).digest('hex').slice(0, 8);
  return `${joined.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 55)}_${hash}`;
}

function functionSpec(call: Call, tool: JsonObject, where: string): ToolSpec {
  const spec: ToolSpec = { name: tool['name'] as string };
  if (typeof tool['description'] === 'string') spec.description = tool['description'];
  // A vendor's function arguments are an object: a schema of anything else could never be met.
  if (isObject(tool['parameters'])) spec.parameters = objectSchema(tool['parameters'], `${where}.parameters`);
  // Absent (or null), the reference API's default: strict when the schema is strict-compatible.
  if (tool['strict'] === true) spec.strict = { param: `${where}.strict` };
  else if (tool['strict'] === undefined || tool['strict'] === null) spec.strict = { param: `${where}.strict`, implied: true };
  if (tool['defer_loading'] === true) {
    call.adjust(where, 'offered:deferred', `${where} is deferred (defer_loading), and no family here searches tools: it could only be offered at once.`);
  }
  return spec;
}

function omit(call: Call, tool: JsonObject, where: string): void {
  const type = String(tool['type']);
  call.adjust(where, `omitted:${type}`, `${where}: '${type}' tools are not run by any family here (only function tools are); it could only be left out.`);
}

/** The request's tools as offered to the vendor, with each adjustment announced (or refused under strict). */
export function planTools(call: Call, raw: unknown): ToolPlan {
  const offered: ToolSpec[] = [];
  const namespaced = new Map<string, NamespacedName>();
  (Array.isArray(raw) ? (raw as JsonObject[]) : []).forEach((tool, i) => {
    const where = `tools[${i}]`;
    if (tool['type'] === 'function') {
      offered.push(functionSpec(call, tool, where));
    } else if (tool['type'] === 'namespace') {
      const namespace = tool['name'] as string;
      (tool['tools'] as JsonObject[]).forEach((inner, j) => {
        const at = `${where}.tools[${j}]`;
        if (inner['type'] !== 'function') return omit(call, inner, at);
        const spec = functionSpec(call, inner, at);
        const flat = flattenedName(namespace, spec.name);
        namespaced.set(flat, { namespace, name: spec.name });
        offered.push({ ...spec, name: flat });
      });
    } else {
      omit(call, tool, where);
    }
  });
  return { offered, namespaced };
}

/** A function as a `tool_choice` (or an allowed tool) names it: one named with its namespace is its flattened name. */
const functionName = (choice: JsonObject): string => {
  const namespace = choice['namespace'];
  return typeof namespace === 'string' ? flattenedName(namespace, choice['name'] as string) : (choice['name'] as string);
};

/**
 * The function a `tool_choice` object forces. One that forces a hosted or freeform tool is
 * refused, since that tool is left out and nothing honest remains of the choice.
 */
export function choiceName(choice: JsonObject): string {
  const type = String(choice['type']);
  if (type === 'function') return functionName(choice);
  throw invalidRequest(
    `tool_choice forces a '${type}' tool, which is not offered to the model (only function tools are: no family here runs it).`,
    'tool_choice',
  );
}

/**
 * `tool_choice: {"type": "allowed_tools", "mode", "tools"}`: the model may call only the listed
 * tools, so only they are offered (every vendor here can be offered a subset; none takes a list
 * beside the tools), with `mode` (`auto` or `required`) as the choice. A hosted tool in the list
 * is left out with the others. Each function listed must be among the tools.
 */
export function allowedTools(choice: JsonObject, offered: readonly ToolSpec[]): { tools: ToolSpec[]; mode: 'auto' | 'required' } {
  const listed = Array.isArray(choice['tools']) ? (choice['tools'] as JsonObject[]) : [];
  const names = new Set<string>();
  listed.forEach((tool, k) => {
    if (tool['type'] !== 'function') return;
    const name = functionName(tool);
    if (!offered.some((spec) => spec.name === name))
      throw invalidRequest(`tool_choice.tools[${k}] names '${name}', which is not in tools.`, `tool_choice.tools[${k}]`);
    names.add(name);
  });
  const mode = choice['mode'] === 'required' ? 'required' : 'auto';
  if (!names.size && mode === 'required')
    throw invalidRequest('tool_choice requires a call of one of its tools, and none of them is a function tool offered to the model.', 'tool_choice');
  return { tools: offered.filter((spec) => names.has(spec.name)), mode };
}
