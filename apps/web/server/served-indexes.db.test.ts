// What APT and YUM serve for a fixed set of uploads (test/served-indexes.ts), against the
// snapshot committed beside this file: moving a format's code (issue 39, "formats as plug-ins")
// must not change a byte a client reads. Captured twice, each on a fresh server and database,
// so nothing in it depends on the time or on chance. Runs on SQLite and on PostgreSQL, against
// one snapshot. A deliberate change to what is served updates the snapshot (vitest -u) in the
// same commit, where a reviewer sees which paths changed.
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, describe, expect, it } from "vitest";
import { databaseKind } from "../test/harness.ts";
import { captureServedIndexes } from "../test/served-indexes.ts";
import { removeTempDirs } from "../test/temp-dirs.ts";

const hasTools = requireTools(["gpgv"]);

afterAll(() => removeTempDirs());

describe.runIf(hasTools)(`the indexes APT and YUM serve (${databaseKind})`, () => {
  it("are the snapshot's, byte for byte where nothing varies by design, and the same on a second run", async () => {
    const first = await captureServedIndexes();
    const second = await captureServedIndexes();
    expect(second).toEqual(first);
    // Every signature gpgv checked is good, and every index a client reads was there.
    for (const [path, file] of Object.entries(first)) {
      if (file.verified !== undefined) expect(file.verified, path).toBe(true);
    }
    await expect(`${JSON.stringify(first, null, 2)}\n`).toMatchFileSnapshot(
      "__snapshots__/served-indexes.json",
    );
  }, 300_000);
});
