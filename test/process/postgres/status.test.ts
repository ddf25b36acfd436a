// The status suite (incidents, rollups, the page) again (test/e2e/status.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/status.test.js');
