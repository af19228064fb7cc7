// Random identifiers: release ids are 8 letters and digits (spec §9); row ids are longer.
import { randomInt } from "node:crypto";

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function randomId(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

export const newReleaseId = () => randomId(8);
export const newRowId = () => randomId(24);
export const nowIso = () => new Date().toISOString();
