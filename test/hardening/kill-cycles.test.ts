import t from 'tap';
import { killCycles } from './helpers/kill-cycles.js';
import { sqliteView } from './helpers/ledger-view.js';
import { scaled, SEED } from './helpers/scale.js';

t.test(`kill -9 cycles under mixed load, two processes on one SQLite file (seed ${SEED})`, (t) =>
  killCycles(t, { env: {}, cycles: scaled(3, 20), open: async (file) => sqliteView(file) }),
);
