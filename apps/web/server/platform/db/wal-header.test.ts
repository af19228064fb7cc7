// The wal-index header as the cheap first look before `PRAGMA data_version`: it changes with
// every commit, by this connection or another one, and with nothing else.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { walHeader } from "./wal-header.ts";

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "packyard-wal-"));
  path = join(dir, "db.sqlite");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  return db;
}

describe("walHeader", () => {
  it("changes with every commit, from this connection or another, and not with reads", () => {
    const mine = open();
    mine.exec("CREATE TABLE t (x INTEGER)");
    const other = open();
    const header = walHeader(path);
    try {
      expect(header.changed()).toBe(true); // the first look
      expect(header.changed()).toBe(false);

      other.exec("INSERT INTO t VALUES (1)");
      expect(header.changed()).toBe(true);
      expect(header.changed()).toBe(false);

      mine.prepare("SELECT count(*) FROM t").get();
      other.prepare("SELECT count(*) FROM t").get();
      expect(header.changed()).toBe(false);

      mine.exec("INSERT INTO t VALUES (2)");
      expect(header.changed()).toBe(true);

      // After a checkpoint the next commit starts the log again: still a change.
      other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      header.changed();
      other.exec("INSERT INTO t VALUES (3)");
      expect(header.changed()).toBe(true);
      expect(header.changed()).toBe(false);
    } finally {
      header.close();
      other.close();
      mine.close();
    }
  });

  it("says changed every time when there is no -shm to read", () => {
    const memory = walHeader(":memory:");
    expect(memory.changed()).toBe(true);
    expect(memory.changed()).toBe(true);
    const missing = walHeader(join(dir, "nothing.sqlite"));
    expect(missing.changed()).toBe(true);
    expect(missing.changed()).toBe(true);
  });
});
