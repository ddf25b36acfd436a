/**
 * Token estimates, for when a count is needed and nobody gave one: an upstream stream cut short
 * before its usage, a vendor that reports no count, a format that asks for a prompt count
 * before the call (`count_tokens`). Used by the ingress formats that render usage and by the vendor
 * translators that fill in what their upstream left out.
 */

export { estimatedPrompt, estimatedReplyUsage, estimateInputTokens, estimateOutputTokens, textTokens, usageOrEstimate } from '../neutral/token-estimate.js';
