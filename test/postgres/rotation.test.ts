// The rotation suite again (test/rotation.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../helpers/harness-database.js';

harnessOnPostgres();
await import('../rotation.test.js');
