import t from 'tap';
import { decodeReasoningState, encodeReasoningState } from '../../src/neutral/reasoning-state.js';

t.test('a reasoning state survives its envelope, and nothing else passes for one', async (t) => {
  const state = { family: 'alpha', kind: 'signature', data: 'EqQBCkYIBxgCKkA…+/=' };
  const envelope = encodeReasoningState(state);
  t.match(envelope, /^gw1\.[A-Za-z0-9_-]+$/, 'one opaque, URL-safe string');
  t.same(decodeReasoningState(envelope), state);
  for (const other of [
    'EqQBCkYIBxgCKkA',
    'gw1.',
    'gw1.not-base64-json',
    `gw1.${Buffer.from('[1,2,3]').toString('base64url')}`,
    `gw1.${Buffer.from('["a","b"]').toString('base64url')}`,
  ]) {
    t.equal(decodeReasoningState(other), null, `not an envelope: ${other}`);
  }
});
