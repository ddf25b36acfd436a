// The rotation suite again (test/e2e/rotation.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/rotation.test.js');
