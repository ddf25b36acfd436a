import type { ErrorObject, ValidateFunction } from 'ajv';
import type { RequestProblem } from '../chain/ingress.js';
import { schemaReason } from '../config/schema-reason.js';

/**
 * A request schema's first complaint as a 400 naming the field in the format's dotted notation:
 * what every ingress's `check` returns when its body fails its JSON Schema.
 */

/** `/messages/0/role` → `messages[0].role`. */
function paramOf(error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') segments.push(String(error.params['missingProperty']));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params['additionalProperty']));
  return segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

function reasonOf(error: ErrorObject): string {
  if (error.keyword === 'anyOf') return 'has an invalid value';
  if (error.keyword === 'additionalProperties') return 'is not a parameter the gateway knows';
  return schemaReason(error);
}

/** The first problem a compiled schema finds in a body, named in the dotted notation (`input[2].call_id`), or undefined. */
export function schemaProblem(validate: ValidateFunction, body: unknown): RequestProblem | undefined {
  if (validate(body)) return undefined;
  const error = validate.errors?.[0];
  if (!error) return { param: 'body', message: 'The request body is invalid.' };
  const param = paramOf(error) || 'body';
  return { param, message: `${param} ${reasonOf(error)}.` };
}
