// Which addresses webhooks may reach, in every spelling, and the connect-time check of resolved
// names (a name resolving to a private address is refused, whatever it resolved to before).
import { describe, expect, it } from "vitest";
import { ForbiddenAddressError, isForbiddenAddress, resolvePublicAddresses } from "./address-guard.ts";

describe("isForbiddenAddress", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.254",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "[::1]",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "::ffff:10.0.0.1",
    "::127.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    "0:0:0:0:0:ffff:c0a8:0101",
    "::ffff:0:127.0.0.1",
    "::ffff:0:a9fe:a9fe",
    "64:ff9b:1::7f00:1",
    "64:ff9b:1:ffff::1",
    "100::1",
    "100::ffff:1",
    "2001::1",
    "2001:0:4136:e378:8000:63bf:80ff:fffe",
    "2001:2::1",
    "2001:1ff::1",
    "192.88.99.1",
    "::1:2:3",
    "not an address",
  ])("refuses %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:93.184.216.34",
    "2002:5db8:d822::",
    "::ffff:0:93.184.216.34",
    "64:ff9b::5db8:d822",
    "100:0:0:1::1",
    "2001:200::1",
    "2001:4860:4860::8888",
    "192.88.100.1",
  ])("allows %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe("resolvePublicAddresses", () => {
  it("refuses a name when any address it resolves to is private", async () => {
    const resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.5", family: 4 },
    ];
    await expect(resolvePublicAddresses("hooks.example.com", resolver)).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    await expect(resolvePublicAddresses("hooks.example.com", resolver)).rejects.toThrow(
      "hooks.example.com resolves to 10.0.0.5",
    );
  });

  it("checks IP literals without resolving them, and answers public addresses", async () => {
    const never = async () => {
      throw new Error("resolved");
    };
    await expect(resolvePublicAddresses("169.254.169.254", never)).rejects.toBeInstanceOf(
      ForbiddenAddressError,
    );
    await expect(resolvePublicAddresses("[::1]", never)).rejects.toBeInstanceOf(ForbiddenAddressError);
    const resolver = async () => [{ address: "2606:4700:4700::1111", family: 6 }];
    expect(await resolvePublicAddresses("hooks.example.com", resolver)).toEqual([
      { address: "2606:4700:4700::1111", family: 6 },
    ]);
  });
});
