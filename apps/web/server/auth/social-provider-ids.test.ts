import { socialProviderList } from "@better-auth/core/social-providers";
import { describe, expect, it } from "vitest";
import { socialProviderIds } from "./social-provider-ids.ts";

describe("socialProviderIds", () => {
  it("is better-auth's list of social providers (update it with better-auth)", () => {
    expect([...socialProviderIds]).toEqual([...socialProviderList]);
  });
});
