import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { BootError } from './boot-error.js';
import { schemaReason } from './schema-reason.js';

/**
 * One Ajv instance for every schema of the gateway (config, catalogue, plugin configs,
 * admin bodies). `useDefaults` fills in defaults, so validated data is complete.
 */
const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false });

export type Validator<T> = (value: unknown) => T;

/** A readable one-liner for an Ajv error: the JSON path at fault, then what is wrong. */
export function describeError(error: ErrorObject): { path: string; message: string } {
  let path = error.instancePath || '/';
  if (error.keyword === 'required') path = `${error.instancePath}/${String(error.params['missingProperty'])}`;
  if (error.keyword === 'additionalProperties') {
    path = `${error.instancePath}/${String(error.params['additionalProperty'])}`;
    return { path, message: 'is not a known setting' };
  }
  return { path, message: schemaReason(error) };
}

/**
 * A failed `anyOf` (Ajv's last error, after those of its branches) as what each branch wants:
 * `must be an integer or "auto"`, not only the first branch's `must be an integer`.
 */
function describeAnyOf(errors: readonly ErrorObject[], anyOf: ErrorObject): { path: string; message: string } {
  const reasons = [...new Set(errors.filter((error) => error.schemaPath.startsWith(`${anyOf.schemaPath}/`)).map(schemaReason))];
  const shared = reasons.every((reason) => reason.startsWith('must be ')) ? 'must be ' : '';
  return { path: anyOf.instancePath || '/', message: shared + reasons.map((reason) => reason.slice(shared.length)).join(' or ') };
}

export class ValidationError extends BootError {
  constructor(
    readonly source: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${source}: ${path} ${detail}`);
    this.name = 'ValidationError';
  }
}

/** Compiles `schema` once; the returned function validates (filling defaults) or throws a ValidationError naming `source` and the path. */
export function compileValidator<T>(schema: object, source: string): Validator<T> {
  const check: ValidateFunction = ajv.compile(schema);
  return (value: unknown): T => {
    if (check(value)) return value as T;
    const errors = check.errors ?? [];
    const [first, last] = [errors[0], errors.at(-1)];
    const { path, message } = last?.keyword === 'anyOf' ? describeAnyOf(errors, last) : first ? describeError(first) : { path: '/', message: 'is invalid' };
    throw new ValidationError(source, path, message);
  };
}

/** For request bodies: the raw Ajv check, so callers can map errors to their own envelope. */
export function compileSchema(schema: object): ValidateFunction {
  return ajv.compile(schema);
}
