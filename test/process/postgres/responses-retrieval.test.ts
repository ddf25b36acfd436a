// The stored responses' own paths (retrieve, input items, delete, cancel) again (test/e2e/responses-retrieval.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/responses-retrieval.test.js');
