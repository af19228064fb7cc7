import { describe, expect, it } from "vitest";
import { classifyFile } from "./file-types.ts";

describe("classifyFile", () => {
  it.each([
    ["widget_1.2.0_amd64.deb", "deb", "application/vnd.debian.binary-package"],
    ["widget-1.2.0-1.x86_64.RPM", "rpm", "application/x-rpm"],
    ["widget-1.2.0.tar.gz", "archive", "application/gzip"],
    ["widget-1.2.0.tgz", "archive", "application/gzip"],
    ["widget-1.2.0.tar.zst", "archive", "application/zstd"],
    ["widget.zip", "archive", "application/zip"],
    ["widget.tar.gz.asc", "signature", "application/pgp-signature"],
    ["SHA256SUMS.txt", "other", "text/plain; charset=utf-8"],
    ["widget.sha256", "checksum", "text/plain; charset=utf-8"],
    ["widget-setup.exe", "binary", "application/octet-stream"],
    ["widget-linux-amd64", "binary", "application/octet-stream"],
    ["widget.json", "other", "application/json"],
    ["widget.unknown", "other", "application/octet-stream"],
  ])("%s is %s served as %s", (filename, kind, contentType) => {
    expect(classifyFile(filename)).toEqual({ kind, contentType });
  });
});
