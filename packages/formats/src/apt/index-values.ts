// Checks shared by the APT renderers: values that would corrupt a deb822 index if written as-is.
import { AptIndexError } from "./apt-index-error.ts";

const hexLengths = { MD5sum: 32, SHA1: 40, SHA256: 64, SHA512: 128 } as const;

export type HashName = keyof typeof hexLengths;

/** Lowercase hex of the right length for `name`, or an APT_BAD_HASH error. */
export function checkedHash(name: HashName, hex: string): string {
  const lower = hex.toLowerCase();
  if (lower.length !== hexLengths[name] || !/^[0-9a-f]+$/.test(lower)) {
    throw new AptIndexError(
      "APT_BAD_HASH",
      `${name} must be ${hexLengths[name]} hex digits, got ${JSON.stringify(hex)}`,
    );
  }
  return lower;
}

export function checkedSize(what: string, size: number): number {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new AptIndexError("APT_BAD_SIZE", `${what}: size must be a non-negative integer, got ${size}`);
  }
  return size;
}

/** A path relative to the repository (or suite) root: no "..", no absolute path, no whitespace. */
export function checkedRelativePath(what: string, path: string): string {
  const segments = path.split("/");
  if (
    path === "" ||
    /[\s\\]/.test(path) ||
    path.startsWith("/") ||
    segments.some((segment) => segment === "" || segment === "." || segment === "..")
  ) {
    throw new AptIndexError("APT_BAD_PATH", `${what}: ${JSON.stringify(path)} is not a clean relative path`);
  }
  return path;
}

/** A value that must stay on one line (Origin, Suite, …). */
export function checkedLine(field: string, value: string): string {
  if (value.trim() === "" || /[\r\n]/.test(value) || value !== value.trim()) {
    throw new AptIndexError(
      "APT_BAD_FIELD",
      `${field}: ${JSON.stringify(value)} must be one non-empty line without surrounding spaces`,
    );
  }
  return value;
}

/** A space-separated list token (architecture, component, suite name). */
export function checkedToken(
  field: string,
  value: string,
  pattern = /^[A-Za-z0-9][A-Za-z0-9._+/-]*$/,
): string {
  if (!pattern.test(value))
    throw new AptIndexError("APT_BAD_FIELD", `${field}: ${JSON.stringify(value)} is not a valid token`);
  return value;
}
