// Where the CLI looks for its data when run through npm from another directory.
import { describe, expect, it } from "vitest";
import { withCallerDataDir } from "./cli.ts";

describe("withCallerDataDir", () => {
  it("takes a relative DATA_DIR, the default included, from where npm was invoked", () => {
    expect(withCallerDataDir({ INIT_CWD: "/srv/packyard" }).DATA_DIR).toBe("/srv/packyard/data");
    expect(withCallerDataDir({ INIT_CWD: "/srv/packyard", DATA_DIR: "var/db" }).DATA_DIR).toBe(
      "/srv/packyard/var/db",
    );
  });

  it("leaves an absolute DATA_DIR, and a run outside npm, as they are", () => {
    expect(withCallerDataDir({ INIT_CWD: "/srv/packyard", DATA_DIR: "/data" }).DATA_DIR).toBe("/data");
    expect(withCallerDataDir({ DATA_DIR: "./data" }).DATA_DIR).toBe("./data");
  });
});
