import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, invalidRequest, type ResolvedCall, type ModelEntry } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import { countAnswer, type ReplyOutput, type TranslatedBody } from '../../src/toolkit/neutral.js';
import { embeddingsBody, parseEmbeddingsRequest, type EmbeddingsRequest } from '../../src/toolkit/reference-format.js';
import { inlineRemoteImages, type GuardedFetcher } from '../../src/toolkit/remote-images.js';
import { estimatedReplyUsage } from '../../src/toolkit/token-estimate.js';
import { requestOnDeployment, type StreamTranslator, type Translator, type UpstreamRequest } from '../../src/toolkit/vendor.js';
import { countedTokens, countTokensBody, countTokensPath } from './count-tokens.js';
import { batchEmbedBody, batchEmbedPath, batchEmbedVectors, embeddingTokens } from './embeddings.js';
import { betaError } from './errors.js';
import { holdImages } from './held-images.js';
import { betaRequestBody, historySignatureIds } from './request.js';
import { betaReply, type RememberSignature } from './response.js';
import { BetaStream } from './stream.js';
import { signaturesOnDeployment, type ThoughtSignatures } from './thought-signatures.js';

/** What every beta translator of one gateway shares. */
export interface BetaServices {
  apiKey: string | undefined;
  embeddingModel: string | null;
  fetcher: GuardedFetcher;
  signatures: ThoughtSignatures;
}

/**
 * The neutral request and reply ⇄ beta (a Gemini-style `generateContent` API), for any ingress
 * format, embeddings, and token counts (`:countTokens`). Beta takes images only as inline
 * bytes, so remote ones are fetched first.
 */
export class BetaTranslator implements Translator {
  private readonly output: ReplyOutput;
  private readonly model: ModelEntry;
  private embeddings: EmbeddingsRequest | null = null;
  private counting = false;
  private readonly remember: RememberSignature;

  constructor(
    private readonly call: ResolvedCall,
    private readonly services: BetaServices,
  ) {
    this.output = call.endpoint.format.output(call);
    this.model = call.model;
    this.remember = (callId, signature) => services.signatures.remember(call, callId, signature);
  }

  async request(): Promise<UpstreamRequest> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: this.call.stream ? 'text/event-stream' : 'application/json' };
    if (this.services.apiKey) headers['x-goog-api-key'] = this.services.apiKey;
    if (this.call.endpoint.operation === 'embed') {
      const model = this.services.embeddingModel;
      if (!model || !this.model.capabilities.has('embeddings')) throw invalidRequest(`The model '${this.model.id}' does not offer embeddings.`, 'model');
      this.embeddings = parseEmbeddingsRequest(this.call.body);
      return { path: batchEmbedPath(model), headers, body: Buffer.from(JSON.stringify(batchEmbedBody(this.embeddings, model))) };
    }
    const request = requestOnDeployment(this.call, this.call.request);
    // Held until the call completes (the plugin's onComplete), whatever happens next.
    holdImages(this.call, await inlineRemoteImages(request.turns, this.services.fetcher));
    const kept = await this.services.signatures.known(this.call, historySignatureIds(request));
    const body = betaRequestBody(request, this.model, signaturesOnDeployment(this.call, kept));
    if (this.call.endpoint.operation === 'count_tokens') {
      this.counting = true;
      return { path: countTokensPath(this.model.upstream), headers, body: Buffer.from(JSON.stringify(countTokensBody(body, this.model.upstream))) };
    }
    const model = encodeURIComponent(this.model.upstream);
    const path = this.call.stream ? `v1beta/models/${model}:streamGenerateContent?alt=sse` : `v1beta/models/${model}:generateContent`;
    return { path, headers, body: Buffer.from(JSON.stringify(body)) };
  }

  response(raw: Buffer): TranslatedBody {
    const body = parseUpstreamJson(raw.toString('utf8'), 'beta', 'a response');
    if (this.embeddings) {
      const vectors = batchEmbedVectors(body, this.embeddings.texts.length);
      // The vendor reports no token usage for embeddings: the input is billed (and shown) by the estimate.
      const prompt = embeddingTokens(this.embeddings.texts);
      return {
        body: JSON.stringify(embeddingsBody(vectors, this.embeddings, this.model.id, prompt)),
        usage: { promptTokens: prompt, completionTokens: 0, estimated: true },
      };
    }
    if (this.counting) return countAnswer(this.output, countedTokens(body));
    const reply = betaReply(body, this.remember, !this.call.request.parallelToolCalls);
    if (body['usageMetadata'] === undefined) reply.usage = estimatedReplyUsage(this.call, reply);
    return this.output.render(reply);
  }

  stream(): StreamTranslator {
    return new BetaStream(this.output.sink(), this.remember, !this.call.request.parallelToolCalls, this.services.apiKey);
  }

  error(status: number, headers: IncomingHttpHeaders, body: Buffer): GatewayError {
    return betaError(status, headers, body, this.services.apiKey);
  }
}
