import t from 'tap';
import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import type { StoreExtension } from '../../src/store/extension.js';
import type { Store } from '../../src/store/store.js';
import { startHarness } from '../helpers/harness.js';

/**
 * A stored response is written with its call's ledger row, not after it: the save starts
 * before the row is committed, so on SQLite both join one group commit (one transaction) and
 * on PostgreSQL both statements go out in the same turn, instead of a second commit (a second
 * round trip) before the last byte of the reply.
 */

const events: string[] = [];

/** `target` with its method `name` noting `started` when called and `ended` (if given) once its promise settled. */
function noted<T extends object>(target: T, name: keyof T & string, started: string, ended?: string): T {
  const method = (target[name] as (...args: unknown[]) => Promise<unknown>).bind(target);
  const value = async (...args: unknown[]): Promise<unknown> => {
    events.push(started);
    const result = await method(...args);
    if (ended) events.push(ended);
    return result;
  };
  return Object.create(target, { [name]: { value } }) as T;
}

/** The store, with its ledger row writes and the responses plugin's saves (its own state) noted as they start and end. */
const noting = (store: Store): Store =>
  Object.create(store, {
    ledger: { value: noted(store.ledger, 'record', 'ledger row written', 'ledger row committed') },
    extend: {
      value: async <T extends object>(extension: StoreExtension<T>): Promise<T> => {
        const opened = await store.extend(extension);
        return extension === (RESPONSE_STATE as StoreExtension<object>) ? noted(opened, 'save' as keyof T & string, 'response saved') : opened;
      },
    },
  }) as Store;

const h = await startHarness(t, { wrapStore: noting });
const { id: keyId, key } = await h.createKey();

for (const stream of [false, true]) {
  t.test(`a ${stream ? 'streamed' : 'non-streamed'} Responses call`, async (t) => {
    events.length = 0;
    const res = await fetch(`${h.origin}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gamma-5.4', input: 'Hello there', stream }),
    });
    t.equal(res.status, 200);
    const text = await res.text();
    t.match(text, stream ? /response\.completed/ : /"status":"completed"/);
    t.same(events, ['response saved', 'ledger row written', 'ledger row committed'], 'the save is under way before the ledger row commits');
    const id = /"id":"(resp_[^"]+)"/.exec(text)?.[1] ?? '';
    t.equal((await (await h.store.extend(RESPONSE_STATE)).thread(keyId, id, 0)).length, 1, 'and it is stored');
  });
}
