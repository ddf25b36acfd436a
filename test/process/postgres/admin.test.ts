// The keys suite (the admin API's keys) again (test/e2e/admin.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/admin.test.js');
