// Whether a SQLite database in WAL mode may have had a commit since the last look, for the price
// of one 48-byte read: the first copy of the wal-index header, at the start of the `-shm` file
// every connection maps (https://www.sqlite.org/walformat.html, "The WAL-Index Header"). Every
// commit, by any connection or process, rewrites it (its change counter, last frame and
// checksums); readers and checkpoints do not. Unchanged bytes mean nothing was committed;
// changed bytes, or a header that cannot be read, mean "ask SQLite" (`PRAGMA data_version`).
//
// Read the header before asking SQLite: a commit that lands in between then shows as a change
// on the next look, never as no change.
import { closeSync, openSync, readSync } from "node:fs";

const HEADER_BYTES = 48;

export interface WalHeader {
  /** True when the header differs from the last look's, or cannot be read. */
  changed(): boolean;
  close(): void;
}

export function walHeader(databasePath: string): WalHeader {
  let fd: number | undefined;
  // No -shm (in memory, or not in WAL mode): SQLite is asked every time.
  let unreadable = databasePath === ":memory:";
  let seen: Buffer | undefined;
  const now = Buffer.alloc(HEADER_BYTES);
  return {
    changed() {
      if (unreadable) return true;
      try {
        fd ??= openSync(`${databasePath}-shm`, "r");
        if (readSync(fd, now, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return true;
      } catch {
        unreadable = true;
        return true;
      }
      if (seen?.equals(now)) return false;
      seen ??= Buffer.alloc(HEADER_BYTES);
      now.copy(seen);
      return true;
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
