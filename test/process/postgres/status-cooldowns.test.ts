// The status plugin's cooldown listing again (test/e2e/status-cooldowns.test.ts), each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/status-cooldowns.test.js');
