import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.ts";

describe("withStatementCache", () => {
  let sqlite: DatabaseSync;
  afterEach(() => {
    if (sqlite.isOpen) sqlite.close();
  });

  it("prepares each SQL text once and reuses the statement", () => {
    sqlite = new DatabaseSync(":memory:");
    const db = withStatementCache(sqlite);
    db.prepare("create table t (id integer primary key, name text)").run();
    const insert = db.prepare("insert into t (name) values (?)");
    insert.run("a");
    expect(db.prepare("insert into t (name) values (?)")).toBe(insert);
    db.prepare("insert into t (name) values (?)").run("b");
    expect(db.prepare("select name from t order by id").all()).toEqual([{ name: "a" }, { name: "b" }]);
  });

  it("keeps at most its size, dropping the least recently used", () => {
    sqlite = new DatabaseSync(":memory:");
    const db = withStatementCache(sqlite, 2);
    const one = db.prepare("select 1 as n");
    const two = db.prepare("select 2 as n");
    expect(db.prepare("select 1 as n")).toBe(one); // now the most recent
    db.prepare("select 3 as n"); // drops "select 2"
    expect(db.prepare("select 1 as n")).toBe(one);
    expect(db.prepare("select 2 as n")).not.toBe(two);
  });

  it("answers a cached statement by the schema of the moment (a column added meanwhile)", () => {
    sqlite = new DatabaseSync(":memory:");
    const db = withStatementCache(sqlite);
    db.prepare("create table t (a integer)").run();
    db.prepare("insert into t (a) values (1)").run();
    expect(db.prepare("select * from t").all()).toEqual([{ a: 1 }]);
    db.prepare("alter table t add column b text default 'x'").run();
    expect(db.prepare("select * from t").all()).toEqual([{ a: 1, b: "x" }]);
  });

  it("closes the database", () => {
    sqlite = new DatabaseSync(":memory:");
    const db = withStatementCache(sqlite);
    db.prepare("select 1").all();
    db.close();
    expect(sqlite.isOpen).toBe(false);
  });
});
