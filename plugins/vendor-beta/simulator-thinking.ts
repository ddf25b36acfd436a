import { createHmac, randomBytes } from 'node:crypto';

/**
 * Thinking in the beta simulator, as the vendor does it: `generationConfig.thinkingConfig` takes
 * a `thinkingBudget` (0: off) or a `thinkingLevel` (Pro models take LOW and HIGH only), never
 * both; `includeThoughts` returns the thoughts as `thought: true` parts; usage reports
 * `thoughtsTokenCount` beside `candidatesTokenCount`. Thought signatures are an HMAC with this
 * simulator's own secret: the first function call of a model turn sent back must carry the
 * one it was given, unchanged, or the documented placeholder for history it did not write.
 */

type Json = Record<string, unknown>;

export class InvalidArgument extends Error {}

/** The placeholder the vendor accepts for function calls it did not produce. */
const PLACEHOLDER = 'skip_thought_signature_validator';
const LEVELS = new Set(['MINIMAL', 'LOW', 'MEDIUM', 'HIGH']);
const PRO_LEVELS = new Set(['LOW', 'HIGH']);

export interface Thinking {
  /** The model thinks. */
  on: boolean;
  /** Its thoughts are returned. */
  shown: boolean;
}

export class SimSignatures {
  private readonly secret = randomBytes(32);

  /** The signature of what a part says (a function call's name and arguments, or its text). */
  sign(part: Json): string {
    const said = part['functionCall']
      ? JSON.stringify({ name: (part['functionCall'] as Json)['name'], args: (part['functionCall'] as Json)['args'] ?? {} })
      : String(part['text'] ?? '');
    return createHmac('sha256', this.secret).update(said).digest('base64');
  }

  /** The first call of every model turn carries its own signature or the placeholder. */
  check(contents: Json[]): void {
    contents.forEach((content, i) => {
      const call = ((content['parts'] ?? []) as Json[]).find((part) => part['functionCall']);
      if (!call) return;
      const signature = call['thoughtSignature'];
      if (signature === undefined) {
        throw new InvalidArgument(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly (contents[${i}]).`,
        );
      }
      if (signature !== PLACEHOLDER && signature !== this.sign(call)) throw new InvalidArgument(`Thought signature is not valid (contents[${i}]).`);
    });
  }
}

/** What a request's thinkingConfig asks of a model; throws InvalidArgument for what the vendor refuses. */
export function thinkingOf(config: Json, model: string): Thinking {
  const thinking = config['thinkingConfig'] as Json | undefined;
  if (!thinking) return { on: false, shown: false };
  const budget = thinking['thinkingBudget'];
  const level = thinking['thinkingLevel'];
  if (budget !== undefined && level !== undefined) throw new InvalidArgument('Only one of thinking_budget and thinking_level may be set.');
  if (level !== undefined && !(model.includes('pro') ? PRO_LEVELS : LEVELS).has(String(level))) {
    throw new InvalidArgument(`Thinking level ${String(level)} is not supported for the model ${model}.`);
  }
  const on = level !== undefined || (typeof budget === 'number' && budget !== 0);
  return { on, shown: on && thinking['includeThoughts'] === true };
}
