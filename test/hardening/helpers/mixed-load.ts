import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Mixed traffic against gateway processes that may die at any moment: streamed and plain chat
 * on three families, embeddings, a key that runs into its ceiling, and refusals (403, 400, 401).
 * Each call's prompt has a word count of its own (2 × its id, +1 for a simulator directive), so
 * the ledger row of every answered call can be found by its prompt_tokens.
 */

export interface LoadKey {
  id: string;
  key: string;
}

export interface LoadKeys {
  /** Every model, a ceiling far away (so its calls hold reservations). */
  open: LoadKey;
  /** A small ceiling: its calls turn into 402s. */
  capped: LoadKey;
  /** Only gamma-5.2: asked for gamma-5.4, a 403. */
  scoped: LoadKey;
}

export interface SentCall {
  id: number;
  kind: string;
  keyId: string;
  /** The prompt's word count: the row's prompt_tokens. */
  promptTokens: number;
  status: number;
  /** A 200 with a whole body, or a stream that ended with [DONE]. */
  answered: boolean;
  /** Refused by the gateway before any upstream (no row). */
  refused: boolean;
}

interface Plan {
  kind: string;
  key: LoadKey;
  path: string;
  body: (words: string) => unknown;
  /** A directive appended to the prompt (one more word). */
  directive?: string;
  stream?: boolean;
}

const chat =
  (model: string, stream: boolean, extra: Record<string, unknown> = {}) =>
  (words: string): unknown => ({ model, stream, max_tokens: 12, messages: [{ role: 'user', content: words }], ...extra });

function plans(keys: LoadKeys): Plan[] {
  return [
    { kind: 'gamma stream', key: keys.open, path: '/v1/chat/completions', body: chat('gamma-5.4', true), stream: true },
    { kind: 'gamma plain', key: keys.open, path: '/v1/chat/completions', body: chat('gamma-5.2', false), directive: '[[sim:delay_ms=100]]' },
    {
      kind: 'beta stream',
      key: keys.open,
      path: '/v1/chat/completions',
      body: chat('beta-3-flash', true),
      directive: '[[sim:chunk_delay_ms=15]]',
      stream: true,
    },
    { kind: 'alpha at a ceiling', key: keys.capped, path: '/v1/chat/completions', body: chat('alpha-opus-4.6', false), directive: '[[sim:delay_ms=50]]' },
    { kind: 'embeddings', key: keys.open, path: '/v1/embeddings', body: (words) => ({ model: 'gamma-5.4', input: words }) },
    { kind: 'refused: allowlist', key: keys.scoped, path: '/v1/chat/completions', body: chat('gamma-5.4', false) },
    { kind: 'refused: body', key: keys.open, path: '/v1/chat/completions', body: () => ({ model: 'gamma-5.4', messages: 'x' }) },
    { kind: 'refused: key', key: { id: '', key: `sl-${'Z'.repeat(32)}` }, path: '/v1/chat/completions', body: chat('gamma-5.4', false) },
  ];
}

function answeredWhole(status: number, text: string, stream: boolean): boolean {
  if (status !== 200) return false;
  if (stream) return text.endsWith('data: [DONE]\n\n');
  try {
    const body = JSON.parse(text) as { choices?: unknown; data?: unknown };
    return Array.isArray(body.choices) || Array.isArray(body.data);
  } catch {
    return false;
  }
}

export class MixedLoad {
  readonly calls: SentCall[] = [];
  private nextId = 1;
  private readonly plans: Plan[];

  constructor(
    keys: LoadKeys,
    /** Origins of the processes alive now. */
    private readonly targets: () => string[],
    private readonly random: () => number,
  ) {
    this.plans = plans(keys);
  }

  /** `workers` callers in a loop until `stop()`, which resolves once their calls in flight ended. */
  start(workers: number): { stop: () => Promise<void> } {
    let stopped = false;
    const loops = Array.from({ length: workers }, async () => {
      while (!stopped) {
        const targets = this.targets();
        const origin = targets[Math.floor(this.random() * targets.length)];
        if (origin === undefined) await sleep(20);
        else await this.send(origin, this.plans[Math.floor(this.random() * this.plans.length)] as Plan);
      }
    });
    return {
      stop: async () => {
        stopped = true;
        await Promise.all(loops);
      },
    };
  }

  private async send(origin: string, plan: Plan): Promise<void> {
    const id = this.nextId++;
    const words = `${'w '.repeat(2 * id)}${plan.directive ?? ''}`.trim();
    const call: SentCall = {
      id,
      kind: plan.kind,
      keyId: plan.key.id,
      promptTokens: 2 * id + (plan.directive ? 1 : 0),
      status: 0,
      answered: false,
      refused: false,
    };
    this.calls.push(call);
    try {
      const res = await fetch(`${origin}${plan.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${plan.key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(plan.body(words)),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      call.status = res.status;
      call.answered = answeredWhole(res.status, text, plan.stream === true);
      call.refused = [400, 401, 402, 403].includes(res.status);
    } catch {
      // The process died under the call: neither answered nor refused.
    }
  }
}
