import type { Credential } from '../helpers/probe-gateway.js';
import { bad, html, JSON_TYPE, nested, ok, type CorpusCase } from './cases.js';

/**
 * Named bad inputs of the admin API (/admin/v1) and what it must answer (docs/api-contract.md,
 * "Admin API"), run by bad-inputs.test.ts after the caller API's.
 */

/** An admin call with the admin token. */
const adminCase = (
  name: string,
  method: string,
  path: string,
  expect: CorpusCase['expect'],
  body?: unknown,
  auth: Credential | null = 'admin',
): CorpusCase => ({
  name: `admin: ${name}`,
  method,
  target: `/admin/v1${path}`,
  ...(auth ? { auth } : {}),
  headers: [JSON_TYPE],
  ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  expect,
});

const UNKNOWN_ID = 'key_0000000000000000';

export const ADMIN_CORPUS: readonly CorpusCase[] = [
  adminCase('list keys (control)', 'GET', '/keys', ok()),
  adminCase('no token', 'GET', '/keys', bad(401, 'invalid_api_key'), undefined, null),
  adminCase('an sl- key as the admin token', 'GET', '/keys', bad(401, 'invalid_api_key'), undefined, 'key'),
  adminCase('create: empty body (read as {})', 'POST', '/keys', bad(400, 'invalid_request', 'name'), ''),
  adminCase('create: malformed JSON', 'POST', '/keys', bad(400, 'invalid_json'), '{"name": '),
  adminCase('create: JSON null', 'POST', '/keys', bad(400), 'null'),
  adminCase('create: no name', 'POST', '/keys', bad(400, 'invalid_request', 'name'), {}),
  adminCase('create: name a number', 'POST', '/keys', bad(400, 'invalid_request', 'name'), { name: 5 }),
  adminCase('create: name 201 characters', 'POST', '/keys', bad(400, 'invalid_request', 'name'), { name: 'n'.repeat(201) }),
  adminCase('create: an unknown field', 'POST', '/keys', bad(400, 'invalid_request', 'admin'), { name: 'x', admin: true }),
  adminCase('create: an unknown model', 'POST', '/keys', bad(400, 'invalid_request', 'models'), { name: 'x', models: ['gpt-17'] }),
  adminCase('create: models a string', 'POST', '/keys', bad(400, 'invalid_request', 'models'), { name: 'x', models: 'gamma-5.4' }),
  adminCase('create: a negative ceiling', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), { name: 'x', monthly_ceiling_usd: '-1.00' }),
  adminCase('create: a ceiling of 1e999', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), { name: 'x', monthly_ceiling_usd: '1e999' }),
  adminCase('create: a ceiling as a number', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), { name: 'x', monthly_ceiling_usd: 5 }),
  adminCase('create: a ceiling of 30 digits', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_ceiling_usd'), {
    name: 'x',
    monthly_ceiling_usd: '9'.repeat(30),
  }),
  adminCase('create: a negative upstream limit', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_upstream_limit_usd'), {
    name: 'x',
    monthly_upstream_limit_usd: '-1.00',
  }),
  adminCase('create: an upstream limit as a number', 'POST', '/keys', bad(400, 'invalid_request', 'monthly_upstream_limit_usd'), {
    name: 'x',
    monthly_upstream_limit_usd: 5,
  }),
  adminCase('create: expires_at not a date', 'POST', '/keys', bad(400, 'invalid_request', 'expires_at'), { name: 'x', expires_at: 'tomorrow' }),
  adminCase('create: expires_at in year 275760', 'POST', '/keys', bad(400, 'invalid_request', 'expires_at'), {
    name: 'x',
    expires_at: '+275760-09-13T00:00:00.001Z',
  }),
  adminCase('create: rpm_limit a fraction', 'POST', '/keys', bad(400, 'invalid_request', 'rpm_limit'), { name: 'x', rpm_limit: 1.5 }),
  adminCase('create: rpm_limit 1e400', 'POST', '/keys', bad(400, 'invalid_request', 'rpm_limit'), '{"name":"x","rpm_limit":1e400}'),
  adminCase('create: cache_ttl_s beyond a day', 'POST', '/keys', bad(400, 'invalid_request', 'cache_ttl_s'), { name: 'x', cache_ttl_s: 86_401 }),
  adminCase('create: cache_ttl_s negative', 'POST', '/keys', bad(400, 'invalid_request', 'cache_ttl_s'), { name: 'x', cache_ttl_s: -1 }),
  adminCase('create: a body over 1 MB', 'POST', '/keys', bad(413, 'payload_too_large'), { name: 'x', pad: 'p'.repeat(1_100_000) }),
  adminCase('create: nesting 100 000 deep', 'POST', '/keys', bad(400), `{"name":"x","deep":${nested(100_000)}}`),
  adminCase('get an unknown key', 'GET', `/keys/${UNKNOWN_ID}`, bad(404, 'not_found', 'id')),
  adminCase('get a key id with a bad escape', 'GET', '/keys/%zz', html(400)),
  adminCase('get a key id of 5 KB', 'GET', `/keys/${'k'.repeat(5000)}`, bad(404, 'not_found', 'id')),
  adminCase('patch an unknown key', 'PATCH', `/keys/${UNKNOWN_ID}`, bad(404, 'not_found', 'id'), { name: 'x' }),
  adminCase('patch with an array body', 'PATCH', `/keys/${UNKNOWN_ID}`, bad(400), []),
  adminCase('revoke an unknown key', 'POST', `/keys/${UNKNOWN_ID}/revoke`, bad(404, 'not_found', 'id')),
  adminCase('rotate an unknown key', 'POST', `/keys/${UNKNOWN_ID}/rotate`, bad(404, 'not_found', 'id')),
  adminCase('DELETE a key (no such route)', 'DELETE', `/keys/${UNKNOWN_ID}`, bad(404, 'not_found')),
  adminCase('an unknown admin path', 'GET', '/secrets', bad(404, 'not_found')),
  adminCase('usage of an unknown key', 'GET', `/keys/${UNKNOWN_ID}/usage`, bad(404, 'not_found', 'id')),
  adminCase('audit with a junk limit', 'GET', '/audit?limit=abc', ok()),
  adminCase('audit with limit -5', 'GET', '/audit?limit=-5', ok()),
  adminCase('audit with limit 1e400', 'GET', '/audit?limit=1e400', ok()),
  adminCase('import: no key', 'POST', '/imports', bad(400, 'invalid_request', 'key'), {}),
  adminCase('import: an sl- key', 'POST', '/imports', bad(400, 'invalid_request', 'key'), { key: 'sl-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345' }),
  adminCase('import: a key of no known kind', 'POST', '/imports', bad(400, 'invalid_request', 'key'), { key: 'xyz-123' }),
  adminCase('import: history of an unknown format', 'POST', '/imports', bad(400, 'invalid_request', 'history'), {
    key: 'qua-abcdef0123456789',
    history: { format: 'xml', content: '<x/>' },
  }),
  adminCase('import: a CSV of garbage', 'POST', '/imports', bad(400, 'invalid_request'), {
    key: 'qua-abcdef0123456789',
    history: { format: 'csv', content: '\u0000,"unterminated\n1,2,3' },
  }),
  adminCase('import: JSON history that is not JSON', 'POST', '/imports', bad(400, 'invalid_request'), {
    key: 'qua-abcdef0123456789',
    history: { format: 'json', content: '[{' },
  }),
  adminCase('import: JSON history with huge numbers', 'POST', '/imports', bad(400, 'invalid_request'), {
    key: 'qua-abcdef0123456789',
    history: { format: 'json', content: '[{"date":"2026-11-01","model":"gamma-5.4","input_tokens":1e400,"output_tokens":-1,"cost":"NaN"}]' },
  }),
  adminCase('import: fetch without a connector', 'POST', '/imports', bad(400, 'invalid_request'), { key: 'or-abcdef0123456789', fetch: true }),
  adminCase('import: a body over 16 MB', 'POST', '/imports', bad(413, 'payload_too_large'), { key: 'qua-abcdef0123456789', pad: 'p'.repeat(17_000_000) }),
  adminCase('get an unknown import', 'GET', '/imports/imp_0000', bad(404, 'not_found', 'id')),
  adminCase('delete an unknown import', 'DELETE', '/imports/imp_0000', bad(404, 'not_found', 'id')),
  adminCase('incident: empty', 'POST', '/incidents', bad(400, 'invalid_request', 'title'), {}),
  adminCase('incident: an unknown status', 'POST', '/incidents', bad(400, 'invalid_request', 'status'), { title: 'x', status: 'on fire' }),
  adminCase('incident: models not a list', 'POST', '/incidents', bad(400, 'invalid_request', 'models'), { title: 'x', models: 'gamma-5.4' }),
  adminCase('incident: an unknown model', 'POST', '/incidents', bad(400, 'invalid_request', 'models'), { title: 'x', models: ['gpt-17'] }),
  adminCase('patch an unknown incident', 'PATCH', '/incidents/inc_0000', bad(404, 'not_found', 'id'), { title: 'x' }),
  adminCase('get an incident id that is not a number', 'GET', '/incidents/%F0%9F%8E%89', bad(404, 'not_found', 'id')),
];
