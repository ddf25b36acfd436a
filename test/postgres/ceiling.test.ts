// The ceiling suite again (test/ceiling.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../helpers/harness-database.js';

harnessOnPostgres();
await import('../ceiling.test.js');
