import { definePlugin, invalidRequest, type Call, type Endpoint, type JsonObject } from '../../src/plugin-api.js';
import { firstPart } from '../../src/toolkit/ingress.js';
import { bearerToken, withoutSecrets } from '../../src/toolkit/secrets.js';
import { responsesFormat } from './format.js';
import { keepConversation, pinToStored } from './affinity.js';
import { compactEndpoint } from './compact.js';
import { isCompaction, openCompactions } from './compaction.js';
import { CompactionSeal } from './compaction-seal.js';
import { isReference, resolveReferences } from './references.js';
import { RETRIEVAL_ENDPOINTS, retrievalResponders } from './retrieval.js';
import { RESPONSE_STATE } from './store/state.js';
import { TrimSchedule } from './trim-schedule.js';
import { turnOf, type StagedResponse } from './turn.js';
import { RESPONSES_WEBSOCKET, responsesSessionOf } from './websocket.js';

/** How long responses are kept for previous_response_id: the usage window. */
export const KEEP_RESPONSES_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * Expired responses, and those of a key beyond its byte budget, are deleted at most this often,
 * after a response is stored and off its path.
 */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** The default byte budget of a key's stored responses (their items' JSON): 256 MiB. */
const DEFAULT_STORED_BYTES_PER_KEY = 256 * 1024 * 1024;

export const RESPONSES_ENDPOINT: Endpoint = {
  name: 'responses',
  path: '/v1/responses',
  method: 'POST',
  upstream: true,
  operation: 'generate',
  format: responsesFormat,
};

/** `POST /v1/responses/input_tokens`: the input tokens of a Responses request body, counted by the model's family. */
export const INPUT_TOKENS_ENDPOINT: Endpoint = {
  name: 'responses.input_tokens',
  path: '/v1/responses/input_tokens',
  method: 'POST',
  upstream: true,
  operation: 'count_tokens',
  format: responsesFormat,
};

/** The endpoints whose body is a Responses request: its conversation, references and compactions are looked up for each. */
const READS_CONVERSATIONS: ReadonlySet<string> = new Set([RESPONSES_ENDPOINT.name, INPUT_TOKENS_ENDPOINT.name, 'responses.compact']);
const ours = (call: Call): boolean => READS_CONVERSATIONS.has(call.endpoint.name);
const isLookedUp = (item: unknown): boolean => isReference(item) || isCompaction(item);

/**
 * Images in the stored conversation, for a model that takes none: the capabilities plugin saw only
 * the new input (the conversation is looked up after the allowlist), so this is its 400 for them.
 */
function refuseStoredImages(call: Call): void {
  const model = call.model;
  if (!model || model.capabilities.has('vision')) return;
  if (firstPart(turnOf(call).history(), 'previous_response_id', 'input_image')) {
    throw invalidRequest(
      `The model '${model.id}' does not accept images, and the conversation previous_response_id continues has some.`,
      'previous_response_id',
    );
  }
}

/**
 * `ingress-responses`: the Responses API (`POST /v1/responses`) for every model of every family
 * (docs/formats/responses.md). Responses are stored per key for 30 days unless `store: false`,
 * a key's newest up to `max_stored_bytes_per_key`; `previous_response_id` continues a stored one.
 * An id this key cannot continue — unknown, another key's, expired, pruned beyond the key's
 * budget, or never stored — is one answer, a 400 before any upstream call; an `item_reference`
 * to an output item of such a response is the same answer naming the item (references.ts).
 * The stored responses are also retrieved, listed, deleted (retrieval.ts); a Responses body's input
 * tokens are counted (`/v1/responses/input_tokens`), and a conversation compacted into a sealed
 * summary (compact.ts), whose compaction item is opened here when it comes back (compaction.ts).
 * Stands after auth (the key scopes the lookup) and model-normalise (the body is checked); the
 * shipped chain puts it after scope, so a key refused the model hears 403 first.
 */
export default definePlugin({
  name: 'ingress-responses',
  needs: ['key', 'model'],
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { max_stored_bytes_per_key: { type: 'integer', minimum: 1, default: DEFAULT_STORED_BYTES_PER_KEY } },
  },
  async setup({ store, clock, log, config, upstreamCredentials }, { max_stored_bytes_per_key: budget }: { max_stored_bytes_per_key: number }) {
    const responses = await store.extend(RESPONSE_STATE);
    const seal = await CompactionSeal.load(store);
    const admin = config.admin.token ? [config.admin.token] : [];
    /** The gateway's own secrets a stored conversation must not keep in clear (a vendor's echo, a key pasted into a prompt). */
    const secretsOf = (call: Call): string[] => {
      const key = bearerToken(call.callerHeaders.authorization);
      return [...upstreamCredentials(), ...admin, ...(key === undefined ? [] : [key])];
    };
    const schedule = new TrimSchedule(budget);
    const trim = async (keyIds: readonly string[]): Promise<void> => {
      for (const keyId of keyIds) {
        const removed = await responses.trim(keyId, budget);
        if (removed > 0) log.info({ key_id: keyId, removed }, "responses beyond the key's stored-bytes budget pruned");
      }
    };
    const trimSoon = (keyId: string): void => {
      setImmediate(() => void trim([keyId]).catch((error: unknown) => log.error({ err: error }, 'response trim failed')));
    };
    let prunedAt = Number.NEGATIVE_INFINITY;
    const prune = (now: number): void => {
      if (now - prunedAt < PRUNE_EVERY_MS) return;
      prunedAt = now;
      // A key whose growth a restart forgot is trimmed at the first prune after it stores again.
      const keyIds = schedule.takeAll();
      setImmediate(() => {
        responses
          .prune(now - KEEP_RESPONSES_MS)
          .then((removed) => (removed > 0 ? log.info({ removed }, 'expired responses pruned') : undefined))
          .then(() => trim(keyIds))
          .catch((error: unknown) => log.error({ err: error }, 'response prune failed'));
      });
    };
    const save = async (call: Call, keyId: string, staged: StagedResponse): Promise<void> => {
      const secrets = secretsOf(call);
      const items = withoutSecrets(staged.items, secrets);
      const resource = withoutSecrets(staged.resource, secrets);
      // Not `{ ...staged, items, keyId }`: in Node 20 each member added after a spread, one its object lacks, costs about 0.5 µs.
      await responses.save({ id: staged.id, keyId, previousId: staged.previousId, createdAt: staged.createdAt, items, resource, deployment: call.deployment });
      if (schedule.stored(keyId, items.length)) trimSoon(keyId);
      prune(clock.now());
    };
    return {
      endpoints: [RESPONSES_ENDPOINT, INPUT_TOKENS_ENDPOINT, compactEndpoint(seal), ...RETRIEVAL_ENDPOINTS],
      responders: retrievalResponders(responses, () => clock.now() - KEEP_RESPONSES_MS),
      webSockets: [RESPONSES_WEBSOCKET],
      async onRequest(call) {
        if (!ours(call)) return;
        keepConversation(call);
        const session = responsesSessionOf(call);
        if (session) turnOf(call).keepForConnection();
        const previous = call.body['previous_response_id'];
        if (typeof previous === 'string') {
          // A WebSocket's last response is continued from the connection's memory, stored or not.
          const thread = session?.conversation(previous) ?? (await responses.thread(call.key.id, previous, clock.now() - KEEP_RESPONSES_MS));
          if (!thread.length) {
            throw invalidRequest(`Previous response with id '${previous}' not found.`, 'previous_response_id', 'previous_response_not_found');
          }
          const turn = turnOf(call);
          turn.continues(thread);
          pinToStored(call, thread.at(-1)?.deployment, turn.history());
          refuseStoredImages(call);
          openCompactions(
            turn.history(),
            () => 'previous_response_id',
            (sealed) => seal.open(call.key.id, sealed),
            () => turn.summariesToOpen(),
          );
        }
        // Only a request with a reference pays for a lookup, and one with a compaction item for opening it.
        const input = call.body['input'];
        if (Array.isArray(input) && input.some(isLookedUp)) {
          const items = input as JsonObject[];
          const turn = turnOf(call);
          openCompactions(
            items,
            (i) => `input[${i}].encrypted_content`,
            (sealed) => seal.open(call.key.id, sealed),
            () => turn.summariesToOpen(),
          );
          if (items.some(isReference)) {
            const resolved = await resolveReferences(items, (id) => responses.one(call.key.id, id, clock.now() - KEEP_RESPONSES_MS));
            turn.resolves(resolved.input, resolved.bytes);
          }
        }
      },
      // Before the last byte of the reply (like the ledger row, and in its group commit): a response the caller has heard of can be continued.
      // Not async: the calls of other endpoints make no promise.
      onCompleteWrite(call) {
        if (call.endpoint !== RESPONSES_ENDPOINT || !call.key) return;
        responsesSessionOf(call)?.settled(
          turnOf(call).id,
          call.outcome === 'ok' ? turnOf(call).keptConversation(call.key.id) : null,
          call.body['previous_response_id'],
        );
        if (call.outcome !== 'ok') return;
        const turn = turnOf(call);
        if (turn.overBound) log.info({ response: turn.id }, 'response not stored: its conversation is over the stored-size bound');
        if (turn.staged) return save(call, call.key.id, turn.staged);
      },
    };
  },
});
