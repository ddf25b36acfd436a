import type { JsonObject } from '../../src/plugin-api.js';

/**
 * Beta `logprobsResult` → reference `logprobs` (`responseLogprobs`/`logprobs` ⇄
 * `logprobs`/`top_logprobs`): the chosen token at each step with its log probability and
 * UTF-8 bytes, and that step's top candidates.
 */

interface Candidate {
  token?: unknown;
  logProbability?: unknown;
}

function entry(candidate: Candidate): JsonObject {
  const token = String(candidate.token ?? '');
  return { token, logprob: typeof candidate.logProbability === 'number' ? candidate.logProbability : 0, bytes: [...Buffer.from(token, 'utf8')] };
}

export function referenceLogprobs(result: unknown): JsonObject | null {
  if (typeof result !== 'object' || result === null) return null;
  const { chosenCandidates, topCandidates } = result as { chosenCandidates?: unknown; topCandidates?: unknown };
  if (!Array.isArray(chosenCandidates)) return null;
  const tops = Array.isArray(topCandidates) ? topCandidates : [];
  return {
    content: chosenCandidates.map((chosen: Candidate, step) => {
      const alternatives = (tops[step] as { candidates?: unknown } | undefined)?.candidates;
      return { ...entry(chosen), top_logprobs: Array.isArray(alternatives) ? alternatives.map((c: Candidate) => entry(c)) : [] };
    }),
    refusal: null,
  };
}
