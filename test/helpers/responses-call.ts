import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { RESPONSES_ENDPOINT } from '../../plugins/ingress-responses/index.js';
import { Call } from '../../src/chain/call.js';
import { TEST_SEAL } from './reasoning-seal.js';
import { ADMITTED_AT, catalogue, detachedExchange } from './translate.js';

/** Unit tests of the Responses format: a call of /v1/responses as the pipeline hands it over, and fixed ids for fixtures. */

/** `model: null`: a call whose model no plugin resolved (yet). */
export function responsesCall(body: Record<string, unknown>, model: string | null = 'gamma-5.4'): Call {
  const { req, res } = detachedExchange();
  const call = new Call(RESPONSES_ENDPOINT, req, res, ADMITTED_AT, Buffer.from(JSON.stringify(body)));
  if (model !== null) call.resolveModel(catalogue.resolve(model) as ModelEntry);
  call.stream = body['stream'] === true;
  call.reasoningSeal = TEST_SEAL;
  return call;
}

/** Ids are random: fixtures say `resp_ID` (a response id also carries its time: 12 hex digits), `msg_ID`, `fc_ID`, `rs_ID` (an output item's id is its response's and its index: item-ids.ts). */
export const fixedIds = (text: string): string =>
  text.replace(/\bresp_[0-9a-f]{12}[A-Za-z0-9]{24}/g, 'resp_ID').replace(/\b(msg|fc|rs)_(?:[0-9a-f]{12}[A-Za-z0-9]{24}[0-9a-z]+|[A-Za-z0-9]{24})\b/g, '$1_ID');
