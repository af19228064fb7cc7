// File size display of spec §9, shared by the web app and the server (error messages, mail).

const SIZE_UNITS = ["B", "KB", "MB", "GB", "TB"] as const;

/** 1023 → "1023 B", 1024 → "1 KB", 1536 → "1.5 KB"; steps of 1024, at most two decimals. */
export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "0 B";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number(value.toFixed(2))} ${SIZE_UNITS[unit]}`;
}
