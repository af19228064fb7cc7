import { describe, expect, it } from "vitest";
import { keysToServe, needsResign } from "./rpm-signers.ts";

const A = { fingerprint: "AAAA" };
const B = { fingerprint: "BBBB" };
const C = { fingerprint: "CCCC" };

describe("needsResign", () => {
  it("re-signs what a key other than the newest signed, and what has no recorded signer", () => {
    expect(needsResign({ signedBy: "BBBB" }, "BBBB")).toBe(false);
    expect(needsResign({ signedBy: "AAAA" }, "BBBB")).toBe(true);
    expect(needsResign({ signedBy: null }, "BBBB")).toBe(true);
  });
});

describe("keysToServe", () => {
  it("serves the keys that sign now when every .rpm carries one of theirs", () => {
    expect(keysToServe([A, B], ["AAAA", "BBBB"], new Set(["AAAA"]))).toEqual([A, B]);
    expect(keysToServe([A, B], ["BBBB"], new Set(["BBBB"]))).toEqual([B]);
    expect(keysToServe([A, B], ["BBBB"], new Set())).toEqual([B]);
  });

  it("keeps serving a retired key while a served .rpm still carries its signature", () => {
    expect(keysToServe([A, B, C], ["CCCC"], new Set(["AAAA", "CCCC"]))).toEqual([A, C]);
  });

  it("serves every key while an .rpm's signer is unknown", () => {
    expect(keysToServe([A, B, C], ["CCCC"], new Set([null, "CCCC"]))).toEqual([A, B, C]);
  });
});
