import type { Call, JsonObject } from '../chain/call.js';
import type { TranslatedBody } from '../chain/translator.js';
import { GatewayError } from '../http/errors.js';
import { mintId } from './ids.js';
import { chatBodyFromLegacy } from './legacy.js';
import { chatCompletionBody, ledgerUsage, textCompletionBody, type Reply, type ReplyEnvelope } from './reply.js';
import { ReferenceStreamWriter } from './stream-writer.js';

/**
 * What a chat-translating vendor needs to know about the reference side of one call: the chat
 * request to translate (a legacy completion request converted), the envelope shared by the
 * reply and all its chunks, and how to render a vendor-neutral reply or stream for the caller.
 */
export class ReferenceCallShape {
  readonly legacy: boolean;
  readonly envelope: ReplyEnvelope;

  constructor(private readonly call: Call) {
    const model = call.model;
    if (!model) throw new GatewayError(500, 'translator created without a model');
    this.legacy = call.endpoint.name === 'completions';
    this.envelope = {
      id: mintId(this.legacy ? 'cmpl-' : 'chatcmpl-'),
      created: Math.floor(call.admittedAt / 1000),
      model: model.id,
    };
  }

  /** The chat request body: the caller's, or the one a legacy completion request becomes. */
  chatBody(): JsonObject {
    return this.legacy ? chatBodyFromLegacy(this.call.body) : this.call.body;
  }

  render(reply: Reply): TranslatedBody {
    const body = this.legacy ? textCompletionBody(reply, this.envelope) : chatCompletionBody(reply, this.envelope);
    return { body: JSON.stringify(body), usage: ledgerUsage(reply.usage) };
  }

  writer(): ReferenceStreamWriter {
    return new ReferenceStreamWriter(this.envelope, this.legacy, this.call.includeUsage);
  }
}
