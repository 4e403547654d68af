// What a SQLite process learns of changes to the cached reads: its own, as its stores
// report them, and every commit another process (a second server, the CLI) makes on
// the file, through PRAGMA data_version; what that changed is unknown, so it outdates
// every kind.
import type SqliteDatabase from 'better-sqlite3';
import { type Changes, KindVersions } from '../cache/changes.ts';

export function sqliteChanges(database: SqliteDatabase.Database): Changes {
  const versions = new KindVersions();
  const dataVersion = database.prepare('pragma data_version').pluck();
  let lastDataVersion: unknown;
  let checkedThisTurn = false;
  // Read once per turn of the event loop and shared by every request of that turn:
  // read on every cached look-up it cost the bearer GET more than 5%. Another
  // process's commit is therefore seen from the next turn on.
  const seeOtherProcesses = () => {
    if (checkedThisTurn || !database.open) return;
    checkedThisTurn = true;
    setImmediate(() => { checkedThisTurn = false; });
    const seen = dataVersion.get();
    if (seen !== lastDataVersion) {
      lastDataVersion = seen;
      versions.move();
    }
  };
  return {
    version(kind) {
      seeOtherProcesses();
      return versions.get(kind);
    },
    trusted: () => database.open,
    // Other processes see the commit itself.
    announce: async () => {},
    forget: (kinds) => versions.move(kinds),
    stop: async () => {},
  };
}
