// The usage suite (GET /v1/usage) again (test/usage-endpoint.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../helpers/harness-database.js';

harnessOnPostgres();
await import('../usage-endpoint.test.js');
