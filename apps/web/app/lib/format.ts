// Display helpers of spec §9: file sizes, compact counts, currency, expiry labels, reading time.

// The server formats sizes in messages and mail too: one implementation, in the contract.
export { formatFileSize } from "@packyard/contract/file-size.ts";

/** Under 1000 as is; under a million one decimal plus K; otherwise one decimal plus M. */
export function formatCompactCount(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(1)}K`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** A count and its noun, singular for exactly one: "1 download", "0 downloads", "1.2K downloads". */
export function formatCount(count: number, one: string, many = `${one}s`): string {
  return `${formatCompactCount(count)} ${count === 1 ? one : many}`;
}

/** Minor units to an en-US currency string: 1200 → "$12.00". */
export function formatCurrency(amountMinor: number, currency = "usd"): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(
    amountMinor / 100,
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from `now` to `expiresAt`, by calendar day in local time. */
export function daysUntil(expiresAt: Date, now = new Date()): number {
  const startOf = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  return Math.round((startOf(expiresAt) - startOf(now)) / DAY_MS);
}

export function formatExpiryLabel(expiresAt: Date, now = new Date()): string {
  const days = daysUntil(expiresAt, now);
  if (days < 0) return "Expired";
  if (days === 0) return "Expires today";
  if (days === 1) return "Expires tomorrow";
  if (days <= 30) return `Expires in ${days} days`;
  return `Expires ${expiresAt.toLocaleDateString()}`;
}

/** Words / 200, rounded up, at least 1 minute; a missing or non-array body gives 5. */
export function readingTimeMinutes(body: unknown): number {
  if (!Array.isArray(body)) return 5;
  const words = body
    .flatMap((block) =>
      block && typeof block === "object" && Array.isArray((block as { children?: unknown }).children)
        ? (block as { children: { text?: unknown }[] }).children.map((c) =>
            typeof c.text === "string" ? c.text : "",
          )
        : [],
    )
    .join(" ")
    .split(/\s+/)
    .filter(Boolean).length;
  return Math.max(1, Math.ceil(words / 200));
}
