// The prompt caching suite again (test/e2e/prompt-caching.test.ts): the ledger's cache counts and upstream cost on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/prompt-caching.test.js');
