/**
 * The plugin contract: everything a plugin under plugins/ may use of the core, and nothing
 * else. Plugins import from this module only, so a newcomer reads here what a plugin can do and
 * the core can move behind it. Grouped by what a plugin is for.
 */

// The plugin itself: its definition, setup context, hooks, and the call every hook sees.
export { definePlugin } from './chain/plugin.js';
export type { Plugin, PluginContext, PluginHooks, UpstreamHead } from './chain/plugin.js';
export { PluginConfigError } from './chain/resolve-plugins.js';
export type { Call, Endpoint, EndpointName, JsonObject, Operation, Outcome, Usage, UpstreamAttempt } from './chain/call.js';
export { ADJUSTED_HEADER, adjustedParamLabel, type Adjustment, type ParameterPolicy } from './chain/adjustments.js';
export type { VendorDeclaration } from './vendors/vendor.js';
export { countAnswer } from './chain/ingress.js';
export type { CallOutline, ErrorFormat, IngressFormat, ReplyOutput, ReplyStream, RequestProblem } from './chain/ingress.js';
export type { Clock } from './clock.js';

// Refusing and answering: the error envelope, JSON replies, admin and operator routes.
export { GatewayError, invalidRequest, modelNotFound } from './http/errors.js';
export { cutForLog } from './http/redact.js';
export type { ErrorStatus } from './http/errors.js';
export { withoutSecrets } from './http/redact.js';
export { sendError, sendJson, SSE_DONE, SSE_HEADERS, sseErrorFrame } from './http/respond.js';
export { handled, validBody } from './admin/admin-body.js';
export { presentedBearer } from './admin/admin-auth.js';
export { compileSchema } from './config/validate.js';
export { html, SafeHtml } from './http/html.js';
export { OPERATOR_PORT_PROPERTIES, placeOperatorRoutes } from './http/side-server.js';

// Keys and credentials.
export { digestsEqual, hashSecret, IMPORTABLE_PREFIXES, importablePrefixOf, NATIVE_KEY_PATTERN, randomToken } from './keys/key-material.js';
export { bearerToken, isCredentialHeader, repeatedCredential } from './http/credential-headers.js';

// The catalogue, money and billing.
export type { Capability, Catalogue, ModelEntry } from './catalogue/catalogue.js';
export type { ReasoningSpec, ReasoningStyle } from './catalogue/reasoning.js';
export { formatUsd } from './catalogue/money.js';
export type { Nanos } from './catalogue/money.js';
export { costOf } from './catalogue/cost.js';
export type { Cost } from './catalogue/cost.js';
export { cycleOf } from './billing/cycle.js';
export type { BillingCycle } from './billing/cycle.js';

// The store a plugin's setup receives, and the seam through which a plugin keeps state of its own.
export type { CycleSpend, KeyRecord, LedgerRow, SpendLimit, Store } from './store/store.js';
export type { BatchWriter, ExtensionMigration, PostgresHandle, SqliteHandle, StoreExtension } from './store/extension.js';

// Retries.
export type { AttemptFailure, RetryDecision, RetryPolicy } from './chain/retry.js';

// The neutral request and reply every ingress format reads into and every vendor translates from.
export { REASONING_EFFORTS, refuseToolNameClash } from './neutral/request.js';
export type { Asked, ImageSource, NeutralRequest, Part, ReasoningEffort, ReasoningRequest, ReasoningState, ResponseFormat, StrictAsk, ToolChoice, ToolSpec, Turn } from './neutral/request.js';
export { ledgerUsage } from './neutral/reply.js';
export type { FinishReason, Reply, ReplyChoice, ReplyEnvelope, ReplyReasoning, ReplyToolCall, ReplyUsage } from './neutral/reply.js';
export type { ReplySink } from './neutral/sink.js';
export { decodeReasoningState, encodeReasoningState } from './neutral/reasoning-state.js';
export { reasoningPlan, unsupportedSetting } from './neutral/reasoning.js';
export type { ReasoningPlan, ReasoningSetting } from './neutral/reasoning.js';
export { estimatedPrompt, estimatedReplyUsage, estimateInputTokens, estimateOutputTokens, textTokens, usageOrEstimate } from './neutral/token-estimate.js';
export { replaysNone, withReplayableTurns } from './neutral/replayable.js';
export { describedSchema, foldedDescription, isSchemaObject, unresolvableRefs, withDefsNamedDefs } from './neutral/json-schema.js';
export { effectiveStrict, strictCompatible } from './neutral/strict-compatible.js';

// The reference chat format (the chat ingress's, and the gamma family's upstream).
export { parseChatRequest } from './reference/chat-request.js';
export { chatBodyFromLegacy } from './reference/legacy.js';
export { checkRequestBody, schemaProblem } from './reference/request-schemas.js';
export { firstPart, positiveInt } from './reference/outline.js';
export { imageSource, isObject, namedToolChoice, objectSchema, toolArguments, TurnSequence } from './reference/sequence.js';
export type { SequenceWords } from './reference/sequence.js';
export { firstInArray, members, memberOutside, typedMemberOutside, type Members, type MembersByType } from './reference/members.js';
export { ChatOutput } from './reference/chat-output.js';
export { chatCompletionBody, referenceUsage } from './reference/reply.js';
export { ReferenceStreamWriter } from './reference/stream-writer.js';

// A vendor family: translating the neutral request to the vendor's wire format and back.
export type { LocalAnswer, SseEvent, StreamTranslator, TranslatedBody, Translator, TranslatorProvider, UpstreamRequest } from './chain/translator.js';
export { embeddingsBody, float32Base64, parseEmbeddingsRequest } from './reference/embeddings.js';
export type { EmbeddingsRequest } from './reference/embeddings.js';
export { mintId, mintTimedId } from './reference/ids.js';
export { parseUpstreamJson, tokenCount } from './reference/upstream-json.js';
export { upstreamError } from './http/upstream-status.js';
export { inlineRemoteImages } from './reference/inline-images.js';
export type { ReleaseImages } from './reference/inline-images.js';
export { GuardedFetcher, IMAGE_LIMITS } from './net/guarded-fetch.js';
export { ByteBudget } from './net/byte-budget.js';
export { policyAllowing } from './net/address-policy.js';

// A vendor's simulator: a real HTTP server speaking its wire format, with faults for tests.
export { faultFromDirectives } from './simulators/faults.js';
export { SimServer } from './simulators/sim-server.js';
export type { SimContext, SimOptions, SimRoute, SimVendor, VendorErrorBody } from './simulators/sim-server.js';
export { embedText, planReply, readDirectives } from './simulators/reply-plan.js';
export type { ReplyPlan, SimChoice, SimRequest, SimToolChoice } from './simulators/reply-plan.js';
