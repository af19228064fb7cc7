import { describe, expect, it } from "vitest";
import { AUTH_ERROR_TEXTS, explainAuthError, SPEC_REDIRECT_ERROR_CODES } from "./auth-errors.ts";

describe("auth error texts", () => {
  it.each(SPEC_REDIRECT_ERROR_CODES)("explains spec §8's %s", (code) => {
    const explained = explainAuthError(code);
    expect(explained.known).toBe(true);
    expect(explained.code).toBe(code);
    expect(explained.title.length).toBeGreaterThan(10);
    expect(explained.explanation.length).toBeGreaterThan(20);
    expect(explained.action.length).toBeGreaterThan(10);
  });

  it("explains the codes better-auth 1.7 redirects with besides spec §8's", () => {
    for (const code of ["state_mismatch", "email_does_not_match", "email_not_verified", "issuer_mismatch"]) {
      expect(explainAuthError(code).known).toBe(true);
    }
  });

  it("gives generic texts for an unknown or missing code, keeping the code", () => {
    expect(explainAuthError("no_such_code")).toMatchObject({ known: false, code: "no_such_code" });
    expect(explainAuthError(undefined)).toMatchObject({ known: false, code: "Unknown" });
    expect(explainAuthError("  ")).toMatchObject({ known: false, code: "Unknown" });
    // Inherited object properties are not codes.
    expect(explainAuthError("constructor").known).toBe(false);
    expect(explainAuthError("toString").known).toBe(false);
  });

  it("never ends a sentence without a full stop", () => {
    for (const texts of Object.values(AUTH_ERROR_TEXTS)) {
      expect(texts.explanation).toMatch(/\.$/);
      expect(texts.action).toMatch(/\.$/);
      expect(texts.title).not.toMatch(/\.$/);
    }
  });
});
