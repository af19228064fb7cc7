import { describe, expect, it } from "vitest";
import { isKeyChange, isServingWrite } from "./write-watch.ts";

describe("isServingWrite", () => {
  it("reads, transaction control and statistics writes change nothing served", () => {
    for (const sql of [
      'select * from "project" where "slug" = ?',
      "PRAGMA data_version",
      "begin",
      "commit",
      "savepoint sp1",
      'insert into "download_stat" ("project_id") values (?)',
      'update "download_month" set "bytes" = "bytes" + ?',
      'update "apikey" set "lastRequest" = $1 where "id" = $2',
      'insert into "session" ("id") values ($1)',
      'update "release_file" set "download_count" = download_count + ? where "id" = ?',
    ]) {
      expect(isServingWrite(sql), sql).toBe(false);
    }
  });

  it("writes to served tables, DDL and anything unrecognised may change what /dl answers", () => {
    for (const sql of [
      'update "release" set "yanked" = ? where "id" = ?',
      'delete from "release_file" where "id" = ?',
      'insert into "repo_generation" ("id") values ($1)',
      'update "project" set "visibility" = $1',
      'update "user" set "username" = ? where "id" = ?',
      'update "release_file" set "download_count" = 0, "filename" = ? where "id" = ?',
      'insert or replace into "deb_package" ("file_id") values (?)',
      "create table x (a int)",
      'with moved as (delete from "release" returning *) select * from moved',
    ]) {
      expect(isServingWrite(sql), sql).toBe(true);
    }
  });
});

describe("isKeyChange", () => {
  it("ignores reads, other tables and the updates that record a key's use", () => {
    for (const sql of [
      `select * from "apikey" where "key" = ?`,
      `update "apikey" set "lastRequest" = ? where "apikey"."id" = ?`,
      `update "apikey" set "updatedAt" = ? where "apikey"."id" = ? returning *`,
      `update "apikey" set "lastRequest" = ?, "requestCount" = "requestCount" + ? where ("apikey"."id" = ? and "requestCount" < ?) returning *`,
      `update "apikey" set "remaining" = "remaining" + ? where ("id" = ? and "remaining" > ?)`,
      `update "project" set "enabled" = ? where "id" = ?`,
      "commit",
    ])
      expect(isKeyChange(sql), sql).toBe(false);
  });

  it("sees a key deleted, disabled, expired, re-scoped or made", () => {
    for (const sql of [
      `delete from "apikey" where "id" = ?`,
      `delete from "apikey" where "referenceId" = ?`,
      `update "apikey" set "enabled" = ? where "id" = ?`,
      `update "apikey" set "expiresAt" = ?, "updatedAt" = ? where "id" = ?`,
      `update "apikey" set "permissions" = ? where "id" = ?`,
      `update apikey set enabled = 0 where id = ?`,
      `insert into "apikey" ("id", "key") values (?, ?)`,
    ])
      expect(isKeyChange(sql), sql).toBe(true);
  });
});
