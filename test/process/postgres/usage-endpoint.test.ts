// The usage suite (GET /v1/usage) again (test/e2e/usage-endpoint.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/usage-endpoint.test.js');
