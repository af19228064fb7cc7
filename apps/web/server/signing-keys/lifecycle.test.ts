import { describe, expect, it } from "vitest";
import { expectedSigners, type LifecycleInput, type LifecycleKey, planKeyLifecycle } from "./lifecycle.ts";

const DAY = 24 * 60 * 60 * 1000;
const now = new Date("2026-06-01T12:00:00Z");
const at = (days: number) => new Date(now.getTime() + days * DAY).toISOString();

function key(id: string, fields: Partial<LifecycleKey> = {}): LifecycleKey {
  return {
    id,
    fingerprint: `FP-${id}`,
    expires_at: null,
    retire_at: null,
    notice_30_at: null,
    notice_7_at: null,
    ...fields,
  };
}

function plan(keys: LifecycleKey[], fields: Partial<LifecycleInput> = {}) {
  return planKeyLifecycle({
    keys,
    now,
    signedBy: expectedSigners(keys, now).join(" "),
    aptSignedAt: null,
    validUntilDays: null,
    overlapMs: 7 * DAY,
    ...fields,
  });
}

describe("planKeyLifecycle", () => {
  it("does nothing for a key that never expires, signed as it should be", () => {
    expect(plan([key("a")])).toEqual({ rotate: null, notices: [], resign: null });
  });

  it("leaves a key far from its expiry alone", () => {
    expect(plan([key("a", { expires_at: at(31) })])).toEqual({ rotate: null, notices: [], resign: null });
  });

  it("mails once at 30 days", () => {
    expect(plan([key("a", { expires_at: at(29) })]).notices).toEqual([{ keyId: "a", days: 30 }]);
    expect(plan([key("a", { expires_at: at(29), notice_30_at: at(-1) })]).notices).toEqual([]);
  });

  it("makes the successor within the lead time, retiring the old key after the overlap, and re-signs", () => {
    const result = plan([key("a", { expires_at: at(14), notice_30_at: at(-16) })]);
    expect(result.rotate).toEqual({ retireAt: new Date(at(7)) });
    expect(result.resign).toBe("signers-changed");
    expect(result.notices).toEqual([]);
  });

  it("retires the old key a day before it expires when the overlap would run past it", () => {
    expect(plan([key("a", { expires_at: at(5) })]).rotate).toEqual({ retireAt: new Date(at(4)) });
    // Already expired (the job did not run): the successor at once, the old key retired now.
    expect(plan([key("a", { expires_at: at(-1) })]).rotate).toEqual({ retireAt: now });
  });

  it("does not rotate again once the successor exists, and mails at 7 days once", () => {
    const keys = [
      key("a", { expires_at: at(6), retire_at: at(5), notice_30_at: at(-24) }),
      key("b", { expires_at: at(90) }),
    ];
    const result = plan(keys);
    expect(result.rotate).toBeNull();
    expect(result.notices).toEqual([{ keyId: "a", days: 7 }]);
    expect(result.resign).toBeNull();
    expect(plan([{ ...keys[0]!, notice_7_at: at(0) }, keys[1]!]).notices).toEqual([]);
  });

  it("sends only the most urgent notice when both are due", () => {
    expect(plan([key("a", { expires_at: at(3), retire_at: at(2) }), key("b")]).notices).toEqual([
      { keyId: "a", days: 7 },
    ]);
  });

  it("re-signs when a key retired or expired since the last publish, and not before", () => {
    const keys = [key("a", { retire_at: at(-0.01) }), key("b")];
    expect(expectedSigners(keys, now)).toEqual(["FP-b"]);
    expect(plan(keys, { signedBy: "FP-a FP-b" }).resign).toBe("signers-changed");
    expect(plan(keys, { signedBy: "FP-b" }).resign).toBeNull();
    const expired = [key("a", { expires_at: at(-0.01), retire_at: at(3) }), key("b")];
    expect(plan(expired, { signedBy: "FP-a FP-b" }).resign).toBe("signers-changed");
    // Never published: nothing to re-sign.
    expect(plan(keys, { signedBy: null }).resign).toBeNull();
  });

  it("re-signs Valid-Until repositories once half the period has passed", () => {
    const keys = [key("a")];
    expect(plan(keys, { validUntilDays: 7, aptSignedAt: new Date(at(-3)) }).resign).toBeNull();
    expect(plan(keys, { validUntilDays: 7, aptSignedAt: new Date(at(-3.5)) }).resign).toBe("valid-until");
    expect(plan(keys, { validUntilDays: null, aptSignedAt: new Date(at(-30)) }).resign).toBeNull();
    // No APT repository: nothing carries Valid-Until.
    expect(plan(keys, { validUntilDays: 7, aptSignedAt: null }).resign).toBeNull();
  });

  it("keeps the newest key as the signer when every key has expired", () => {
    expect(
      expectedSigners([key("a", { expires_at: at(-2) }), key("b", { expires_at: at(-1) })], now),
    ).toEqual(["FP-b"]);
  });
});
