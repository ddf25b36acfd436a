import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * Holds Responses output to the Open Responses specification: the response object against its
 * `ResponseResource.json`, and a stream's every event against the event schema of its `type`,
 * from the schemas vendored in test/fixtures/open-responses (see its README). Validated against
 * the JSON schemas, not the specification's generated zod (which types an echoed
 * `text.format.schema` as null where the JSON schema allows any).
 */

const SCHEMAS = new URL('../fixtures/open-responses/schemas/', import.meta.url).pathname;
/** A base the schemas' relative `$ref`s (`./Message.json`) resolve against. */
const BASE = 'https://open-responses.schemas/';

type Json = Record<string, unknown>;

const ajv = new Ajv({ allErrors: true, strict: false });
/** Each streaming event's schema by the `type` it fixes (e.g. `response.output_text.delta`). */
const eventSchemas = new Map<string, ValidateFunction>();
for (const file of readdirSync(SCHEMAS).filter((name) => name.endsWith('.json'))) {
  ajv.addSchema({ ...(JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8')) as Json), $id: BASE + file });
}
for (const file of readdirSync(SCHEMAS).filter((name) => name.endsWith('StreamingEvent.json'))) {
  const validate = ajv.getSchema(BASE + file) as ValidateFunction;
  const type = (validate.schema as { properties: { type: { enum: string[] } } }).properties.type.enum[0] as string;
  eventSchemas.set(type, validate);
}

const described = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);

/** The vendored schemas a test holds a whole value to (a response, a compaction, a WebSocket message). */
export type SchemaName = 'ResponseResource' | 'CompactResource' | 'WebSocketResponseCreateEvent' | 'WebSocketErrorEvent';

/** What makes a value fail the named schema (empty when it passes). */
export function schemaProblems(name: SchemaName, value: unknown): string[] {
  const validate = ajv.getSchema(`${BASE}${name}.json`) as ValidateFunction;
  return validate(value) ? [] : described(validate.errors);
}

/** What makes a response object fail `ResponseResource.json` (empty when it passes). */
export function responseProblems(response: unknown): string[] {
  return schemaProblems('ResponseResource', response);
}

/**
 * What makes one streaming event fail the specification's union of events: a type outside it, or
 * the schema of its type. Over WebSocket an `error` message may instead be a `WebSocketErrorEvent`
 * (a `status` beside the error, no `sequence_number`).
 */
export function eventProblems(data: Json, transport: 'http' | 'websocket' = 'http'): string[] {
  const type = String(data['type']);
  const validate = eventSchemas.get(type);
  if (!validate) return [`'${type}' is not an event of the specification`];
  if (validate(data)) return [];
  const problems = described(validate.errors);
  if (transport === 'websocket' && type === 'error' && schemaProblems('WebSocketErrorEvent', data).length === 0) return [];
  return problems;
}

/** What makes a compacted response (POST /v1/responses/compact) fail `CompactResource.json` (empty when it passes). */
export function compactProblems(compacted: unknown): string[] {
  return schemaProblems('CompactResource', compacted);
}

export interface ParsedEvent {
  /** The `event:` line. */
  name: string;
  data: Json;
}

/** The events of a Responses SSE body (a `data: [DONE]` frame is the specification's terminal marker, not an event). */
export function sseEvents(text: string): ParsedEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .flatMap((frame) => {
      const lines = frame.split('\n');
      const name = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? '';
      const data = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '';
      return data === '[DONE]' ? [] : [{ name, data: JSON.parse(data) as Json }];
    });
}

/**
 * What makes a stream fail the specification: an event whose type is outside the specification's
 * union or that fails its schema (the responses events embed carry, each validated whole), an
 * `event:` name other than its `type`, sequence numbers other than 0, 1, 2…, or a stream that
 * does not end with exactly one terminal event (completed, incomplete or failed).
 */
export function streamProblems(events: readonly ParsedEvent[]): string[] {
  const problems: string[] = [];
  events.forEach(({ name, data }, i) => {
    const type = String(data['type']);
    if (name !== type) problems.push(`event ${i}: event name '${name}' is not its type '${type}'`);
    if (data['sequence_number'] !== i) problems.push(`event ${i} (${type}): sequence_number ${String(data['sequence_number'])}`);
    problems.push(...eventProblems(data).map((problem) => `event ${i} (${type}): ${problem}`));
  });
  const terminal = events.flatMap(({ data }, i) =>
    ['response.completed', 'response.incomplete', 'response.failed'].includes(String(data['type'])) ? [i] : [],
  );
  if (terminal.length !== 1 || terminal[0] !== events.length - 1) problems.push(`terminal events at ${JSON.stringify(terminal)} of ${events.length}`);
  return problems;
}
