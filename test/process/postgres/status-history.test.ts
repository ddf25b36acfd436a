// The status history suite (test/e2e/status-history.test.ts) again, each gateway on a database of a throwaway PostgreSQL server.
import { harnessOnPostgres } from '../../helpers/harness-database.js';

harnessOnPostgres();
await import('../../e2e/status-history.test.js');
