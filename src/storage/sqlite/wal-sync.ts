// fsyncs of SQLite's write-ahead log on libuv's thread pool, for the durable
// transactions, which commit without SQLite's own fsync (durable-transactions.ts).
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sharedSyncs } from '../../platform/shared-syncs.ts';

export interface WalSync {
  /** Resolves once everything written to the WAL before the call is on disk. */
  sync(): Promise<void>;
  /** Closes the WAL's descriptor once the syncs under way have ended; never rejects. */
  close(): Promise<void>;
}

/**
 * The WAL of the database file `databasePath`, opened at the first sync, after a
 * commit has created it; its directory is fsynced then, as SQLite does, so that the
 * file's name is on disk too. Linux and macOS flush a file for any descriptor of it.
 */
export function walSync(databasePath: string): WalSync {
  let wal: Promise<FileHandle> | undefined;
  let closed = false;
  const opened = () => {
    wal ??= (async () => {
      const directory = await open(dirname(databasePath), 'r');
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
      return open(`${databasePath}-wal`, 'r');
    })();
    wal.catch(() => { wal = undefined; });
    return wal;
  };
  return {
    sync: sharedSyncs(async () => {
      if (closed) throw new Error('the database is closed');
      await (await opened()).sync();
    }),
    async close() {
      closed = true;
      const handle = await wal?.catch(() => undefined);
      await handle?.close().catch(() => {});
    },
  };
}
