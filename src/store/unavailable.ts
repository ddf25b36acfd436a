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
 * rejected. The wrapped methods are made once per property, not per call.
 */
export function guarded<T extends object>(target: T, backend: StoreUnavailableError['backend'], unavailable: (error: unknown) => boolean): T {
  const translate = (error: unknown): unknown => (unavailable(error) ? new StoreUnavailableError(backend, error) : error);
  const rethrow = (error: unknown): never => {
    throw translate(error);
  };
  const wrapped = new Map<PropertyKey, (...args: unknown[]) => unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property);
      if (typeof value !== 'function') return value;
      let method = wrapped.get(property);
      if (!method) {
        const inner = value as (...args: unknown[]) => unknown;
        method = (...args: unknown[]): unknown => {
          try {
            const result = inner.apply(object, args);
            return result instanceof Promise ? result.catch(rethrow) : result;
          } catch (error) {
            return rethrow(error);
          }
        };
        wrapped.set(property, method);
      }
      return method;
    },
  });
}
