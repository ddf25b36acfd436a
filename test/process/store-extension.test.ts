import type { StoreExtension } from '../../src/store/extension.js';
import { isStoreUnavailable } from '../../src/store/unavailable.js';
import { contract, postgresOnOwnServer } from '../helpers/store-backends.js';

// One test stops the server (an outage): this file's databases live on a server of its own.
postgresOnOwnServer();

/**
 * The store's extension seam as a third-party plugin uses it: a table of its own on each
 * backend, its migrations on its own track, a sub-store built on the store's connection.
 */

interface Notes {
  add(text: string): Promise<void>;
  all(): Promise<string[]>;
}

const NOTES_V1 = { version: 1, name: 'notes', sql: 'CREATE TABLE plugin_notes (text TEXT NOT NULL)' };
const NOTES_V2 = { version: 2, name: 'note order', sql: 'CREATE INDEX plugin_notes_by_text ON plugin_notes(text)' };

/** A plugin's notes, at the migrations given. */
function notesState(migrations: StoreExtension<Notes>['sqlite']['migrations']): StoreExtension<Notes> {
  return {
    name: 'notes',
    sqlite: {
      migrations,
      open: ({ db, writes }) => ({
        add: (text) => writes.writeStatement(() => void db.prepare('INSERT INTO plugin_notes (text) VALUES (?)').run(text)),
        all: async () => db.prepare('SELECT text FROM plugin_notes ORDER BY text').pluck().all() as string[],
      }),
    },
    postgres: {
      migrations,
      open: ({ pool }) => ({
        add: async (text) => {
          await pool.query('INSERT INTO plugin_notes (text) VALUES ($1)', [text]);
        },
        all: async () => (await pool.query<{ text: string }>('SELECT text FROM plugin_notes ORDER BY text')).rows.map((row) => row.text),
      }),
    },
  };
}

contract("extensions: a plugin's table on its own track, applied once, the next version alone later", async (t, db) => {
  const v1 = notesState([NOTES_V1]);
  const first = await db.open();
  const notes = await first.extend(v1);
  await notes.add('b');
  t.equal(await first.extend(v1), notes, 'asked again: the same sub-store');
  await t.rejects(first.extend(notesState([NOTES_V1])), /already has an extension named notes/, 'another extension of the same name is refused');

  const second = await db.open();
  const v2 = notesState([NOTES_V1, NOTES_V2]);
  const later = await second.extend(v2);
  await later.add('a');
  t.same(await later.all(), ['a', 'b'], "the first version's rows are kept");
  t.same(await db.query("SELECT track, version, name FROM store_migrations WHERE track = 'notes' ORDER BY version"), [
    { track: 'notes', version: 1, name: 'notes' },
    { track: 'notes', version: 2, name: 'note order' },
  ]);
  t.same(await db.query("SELECT version FROM schema_migrations WHERE name IN ('notes', 'note order')"), [], "not on the core's track");
});

contract("extensions: a sub-store's unavailability is the core's StoreUnavailableError", async (t, db) => {
  const store = await db.open({ timeoutMs: 500 });
  const notes = await store.extend(notesState([NOTES_V1]));
  const restore = await db.outage();
  const failed = await notes.add('x').catch((error: unknown) => error);
  await restore();
  t.ok(isStoreUnavailable(failed), `a StoreUnavailableError: ${String(failed)}`);
});

contract('extensions: a failing migration leaves nothing of its version behind and fails the extension', async (t, db) => {
  const store = await db.open();
  const broken = notesState([NOTES_V1, { version: 2, name: 'broken', sql: 'CREATE INDEX nowhere ON no_such_table(x)' }]);
  await t.rejects(store.extend(broken), /no_such_table/);
  const fixed = await (await db.open()).extend(notesState([NOTES_V1, NOTES_V2]));
  await fixed.add('after');
  t.same(
    await db.query("SELECT version, name FROM store_migrations WHERE track = 'notes' ORDER BY version"),
    [
      { version: 1, name: 'notes' },
      { version: 2, name: 'note order' },
    ],
    'the broken version left no record: the fixed one applies',
  );
});
