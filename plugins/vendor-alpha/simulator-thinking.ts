import { createHmac, randomBytes } from 'node:crypto';
import type { SimChoice } from '../../src/toolkit/simulator.js';

/**
 * Extended thinking in the alpha simulator, as the vendor does it: `thinking` (`enabled` with a
 * budget, or `adaptive` with `output_config.effort`) has the model think first; its thinking
 * block is signed (an HMAC of the text with this simulator's own secret, so only it can verify
 * it), or redacted on request (`[[sim:redacted=1]]`). While it thinks the vendor's constraints
 * apply, and in a tool loop the last assistant turn must come back starting with its thinking
 * block, unchanged; every thinking block sent back must carry its own signature.
 */

type Json = Record<string, unknown>;

export class ThinkingRefused extends Error {}

const DOCS = 'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const EFFORTS = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

const blocksOf = (message: Json): Json[] => (Array.isArray(message['content']) ? (message['content'] as Json[]) : []);

export class SimThinking {
  private readonly secret = randomBytes(32);

  sign(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64');
  }

  /** A redacted block's data: the text and its signature, opaque to the caller. */
  redact(text: string): string {
    return `${Buffer.from(text).toString('base64')}.${this.sign(`redacted:${text}`)}`;
  }

  private validRedaction(data: unknown): boolean {
    if (typeof data !== 'string') return false;
    const [text = '', signature] = data.split('.');
    return signature === this.sign(`redacted:${Buffer.from(text, 'base64').toString()}`);
  }

  /** Throws ThinkingRefused for what the vendor refuses about thinking. */
  check(body: Json): void {
    this.checkReplayed(body);
    const thinking = (body['thinking'] ?? { type: 'disabled' }) as Json;
    if (thinking['type'] === 'disabled') return;
    if (thinking['type'] === 'enabled') {
      const budget = thinking['budget_tokens'];
      if (typeof budget !== 'number' || budget < 1024)
        throw new ThinkingRefused('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
      if (budget >= (body['max_tokens'] as number)) throw new ThinkingRefused(`\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${DOCS}`);
    } else if (thinking['type'] === 'adaptive') {
      const effort = (body['output_config'] as Json | undefined)?.['effort'];
      if (effort !== undefined && !EFFORTS.has(String(effort)))
        throw new ThinkingRefused("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
    } else {
      throw new ThinkingRefused("thinking.type: Input should be 'enabled', 'adaptive' or 'disabled'");
    }
    this.checkConstraints(body);
  }

  private checkConstraints(body: Json): void {
    if (body['temperature'] !== undefined && body['temperature'] !== 1)
      throw new ThinkingRefused(`\`temperature\` may only be set to 1 when thinking is enabled. ${DOCS}`);
    if (body['top_k'] !== undefined) throw new ThinkingRefused(`\`top_k\` must be unset when thinking is enabled. ${DOCS}`);
    if (typeof body['top_p'] === 'number' && body['top_p'] < 0.95)
      throw new ThinkingRefused(`\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. ${DOCS}`);
    const choice = (body['tool_choice'] ?? {}) as Json;
    if (choice['type'] === 'any' || choice['type'] === 'tool') throw new ThinkingRefused('Thinking may not be enabled when tool_choice forces tool use.');
    const messages = body['messages'] as Json[];
    const last = messages.length - 1;
    if (messages[last]?.['role'] === 'assistant') throw new ThinkingRefused('Prefilling the assistant message is not supported when thinking is enabled.');
    // In a tool loop, the assistant turn the results answer must open with its thinking block.
    const answering = blocksOf(messages[last] as Json).some((block) => block['type'] === 'tool_result');
    const opening = blocksOf(messages[last - 1] ?? {})[0];
    if (answering && opening?.['type'] !== 'thinking' && opening?.['type'] !== 'redacted_thinking') {
      throw new ThinkingRefused(
        `messages.${last - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(opening?.['type'] ?? 'nothing')}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${DOCS}`,
      );
    }
  }

  /** Every thinking block sent back must be one of this simulator's, unchanged. */
  private checkReplayed(body: Json): void {
    (body['messages'] as Json[]).forEach((message, i) => {
      blocksOf(message).forEach((block, j) => {
        if (block['type'] === 'thinking' && block['signature'] !== this.sign(String(block['thinking']))) {
          throw new ThinkingRefused(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
        }
        if (block['type'] === 'redacted_thinking' && !this.validRedaction(block['data'])) {
          throw new ThinkingRefused(`messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`);
        }
      });
    });
  }

  /** The choice's thinking as a whole content block (none when it does not think). */
  block(choice: SimChoice, redacted: boolean): Json[] {
    if (!choice.thinking.length) return [];
    const text = choice.thinking.join('');
    return [redacted ? { type: 'redacted_thinking', data: this.redact(text) } : { type: 'thinking', thinking: text, signature: this.sign(text) }];
  }

  /** The stream events of the choice's thinking block at `index`: start, thinking deltas, one signature delta, stop (a redacted block comes whole). */
  events(choice: SimChoice, index: number, redacted: boolean): Json[] {
    if (!choice.thinking.length) return [];
    const text = choice.thinking.join('');
    if (redacted)
      return [
        { type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: this.redact(text) } },
        { type: 'content_block_stop', index },
      ];
    return [
      { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
      ...choice.thinking.map((piece) => ({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } })),
      { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: this.sign(text) } },
      { type: 'content_block_stop', index },
    ];
  }
}
