// The keys suite (the admin API's keys) again (test/admin.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../helpers/harness-database.js';

harnessOnPostgres();
await import('../admin.test.js');
