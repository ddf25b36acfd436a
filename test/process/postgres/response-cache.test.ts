// The response cache suite again (test/e2e/response-cache.test.ts), each gateway on a database of a throwaway PostgreSQL server: two gateways share its entries.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/response-cache.test.js');
