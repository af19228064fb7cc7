import { describe, expect, it } from "vitest";
import { isPrimaryFile } from "./primary-files.ts";

describe("isPrimaryFile", () => {
  it("follows the yum rule", () => {
    for (const path of [
      "/etc/x",
      "/etc/a/b",
      "/usr/bin/x",
      "/usr/sbin/x",
      "/opt/x/sbin/y",
      "/bin/",
      "/usr/lib/sendmail",
    ]) {
      expect(isPrimaryFile(path), path).toBe(true);
    }
    for (const path of [
      "/etc",
      "/usr/bin",
      "/usr/lib/sendmail2",
      "/usr/share/x",
      "/opt/cabin",
      "/var/lib/x",
    ]) {
      expect(isPrimaryFile(path), path).toBe(false);
    }
  });
});
