// The admin usage suite again (test/e2e/admin-usage.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/admin-usage.test.js');
