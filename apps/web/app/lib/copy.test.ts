import { afterEach, describe, expect, it, vi } from "vitest";

const toast = vi.hoisted(() => ({ success: vi.fn(), error: vi.fn() }));
vi.mock("sonner", () => ({ toast }));

const { copyToClipboard } = await import("./copy.ts");

afterEach(() => {
  vi.unstubAllGlobals();
  toast.success.mockReset();
  toast.error.mockReset();
});

describe("copyToClipboard (spec §8)", () => {
  it("writes the text and toasts 'Copied to clipboard!'", async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal("navigator", { clipboard: { writeText } });
    expect(await copyToClipboard("abc123")).toBe(true);
    expect(writeText).toHaveBeenCalledWith("abc123");
    expect(toast.success).toHaveBeenCalledWith("Copied to clipboard!");
    expect(toast.error).not.toHaveBeenCalled();
  });

  it("takes another success message", async () => {
    vi.stubGlobal("navigator", { clipboard: { writeText: vi.fn().mockResolvedValue(undefined) } });
    await copyToClipboard("x", "Key copied");
    expect(toast.success).toHaveBeenCalledWith("Key copied");
  });

  it("toasts 'Failed to copy to clipboard' when writing is refused", async () => {
    vi.stubGlobal("navigator", { clipboard: { writeText: vi.fn().mockRejectedValue(new Error("denied")) } });
    expect(await copyToClipboard("abc")).toBe(false);
    expect(toast.error).toHaveBeenCalledWith("Failed to copy to clipboard");
    expect(toast.success).not.toHaveBeenCalled();
  });

  it("fails cleanly where there is neither a Clipboard API nor a document", async () => {
    vi.stubGlobal("navigator", {});
    expect(await copyToClipboard("abc")).toBe(false);
    expect(toast.error).toHaveBeenCalledWith("Failed to copy to clipboard");
  });
});
