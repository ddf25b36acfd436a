import { GatewayError, type Call } from '../../src/plugin-api.js';
import { mintId } from '../../src/toolkit/ids.js';
import { ledgerUsage, stateSealer, type Reply, type ReplyEnvelope, type ReplyOutput, type SealState, type TranslatedBody } from '../../src/toolkit/neutral.js';
import { estimatedPrompt } from '../../src/toolkit/token-estimate.js';
import { chatCompletionBody, textCompletionBody } from './render.js';
import { ReferenceStreamWriter } from './stream.js';

/**
 * How a reply is written in the reference format for one call: a chat completion (or a legacy
 * text completion for `/v1/completions`), whole or as chunks, all sharing one envelope (a
 * minted id, the admission time, the canonical model).
 */
export class ChatOutput implements ReplyOutput {
  private readonly legacy: boolean;
  private readonly envelope: ReplyEnvelope;
  private readonly seal: SealState;

  constructor(private readonly call: Call) {
    const model = call.model;
    if (!model) throw new GatewayError(500, 'a reply was written before the model was resolved');
    this.legacy = call.endpoint.name === 'completions';
    this.seal = stateSealer(call);
    this.envelope = { id: mintId(this.legacy ? 'cmpl-' : 'chatcmpl-'), created: Math.floor(call.admittedAt / 1000), model: model.id };
  }

  render(reply: Reply): TranslatedBody {
    const body = this.legacy ? textCompletionBody(reply, this.envelope) : chatCompletionBody(reply, this.envelope, this.seal);
    this.call.answerNotes?.reply(this.envelope.id, reply.choices, (choice) => choice.finish);
    return { body: JSON.stringify(body), usage: ledgerUsage(reply.usage) };
  }

  /** The estimate is read only when a usage chunk has no vendor count to show. */
  sink(): ReferenceStreamWriter {
    const { call } = this;
    return new ReferenceStreamWriter(this.envelope, this.legacy, call.includeUsage, () => estimatedPrompt(call), this.seal, call.answerNotes);
  }
}
