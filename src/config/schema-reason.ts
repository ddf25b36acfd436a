import type { ErrorObject } from 'ajv';

/**
 * What is wrong with a value, in words, from one Ajv error: the tail of every validation message
 * the gateway writes (request bodies, admin bodies, config). Ajv's own text for some keywords
 * reads as code ("must be string,array"); these are written for people. Keywords each caller words
 * its own way (an unknown member, a failed `anyOf`) are the caller's to handle first.
 */
export function schemaReason(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(error.params['allowedValues'] as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(error.params['allowedValue'])}`;
    case 'type':
      return `must be ${typeNames(error.params['type'])}`;
    default:
      return error.message ?? 'is invalid';
  }
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** `"string,array"` (or `["string","array"]`, as Ajv gives a list) → `a string or an array`. */
function typeNames(type: unknown): string {
  const names = (Array.isArray(type) ? type.map(String) : String(type).split(',')).map((name) => TYPE_NAMES[name] ?? name);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1) as string}` : (names[0] ?? 'valid');
}
