// The status endpoints suite again (test/status-endpoints.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../helpers/harness-database.js';

harnessOnPostgres();
await import('../status-endpoints.test.js');
