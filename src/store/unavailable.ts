/**
 * The database could not be reached, or did not answer in time. Both backends raise it for
 * connection failures and timeouts — never for a bug or a broken constraint — so that a caller
 * can tell "try again shortly" (503 `service_unavailable`, src/http/errors.ts) from an
 * unexpected failure (500).
 */
export class StoreUnavailableError extends Error {
  constructor(
    readonly backend: 'sqlite' | 'postgres',
    cause: unknown,
  ) {
    super(`the ${backend} database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

export const isStoreUnavailable = (value: unknown): value is StoreUnavailableError => value instanceof StoreUnavailableError;

/**
 * `target` (one of a backend's stores) with every method's failure that `unavailable`
 * recognises rethrown as a StoreUnavailableError, whether the method threw or its promise
 * rejected. The wrapper inherits from `target` and carries a wrapped copy of each method, made
 * once: a call costs one extra promise, not a proxy trap (the hot path calls these per request).
 */
export function guarded<T extends object>(target: T, backend: StoreUnavailableError['backend'], unavailable: (error: unknown) => boolean): T {
  const translate = (error: unknown): unknown => (unavailable(error) ? new StoreUnavailableError(backend, error) : error);
  const rethrow = (error: unknown): never => {
    throw translate(error);
  };
  const wrapper = Object.create(target) as T;
  const names = new Set<string>(Object.getOwnPropertyNames(target));
  for (let proto = Reflect.getPrototypeOf(target); proto && proto !== Object.prototype; proto = Reflect.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
  }
  for (const name of names) {
    const inner: unknown = Reflect.get(target, name);
    if (typeof inner !== 'function') continue;
    const method = (...args: unknown[]): unknown => {
      try {
        const result: unknown = Reflect.apply(inner, target, args);
        return result instanceof Promise ? result.catch(rethrow) : result;
      } catch (error) {
        return rethrow(error);
      }
    };
    Object.defineProperty(wrapper, name, { value: method });
  }
  return wrapper;
}
