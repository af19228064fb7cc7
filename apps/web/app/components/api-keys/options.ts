// The choices a new API key offers, shared by the form and the server that checks it.

/** better-auth's api-key plugin refuses longer names. */
export const KEY_NAME_MAX = 32;

export const EXPIRY_OPTIONS = [
  { value: "never", label: "Never", days: null },
  { value: "30", label: "30 days", days: 30 },
  { value: "90", label: "90 days", days: 90 },
  { value: "365", label: "1 year", days: 365 },
] as const;
export type ExpiryChoice = (typeof EXPIRY_OPTIONS)[number]["value"];
export const EXPIRY_VALUES = EXPIRY_OPTIONS.map((o) => o.value) as [ExpiryChoice, ...ExpiryChoice[]];
