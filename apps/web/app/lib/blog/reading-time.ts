// Reading time of a post (spec §9): its words divided by 200, rounded up, at least one minute.
// A body that is missing or not an array of blocks gives 5 minutes. Words are counted in the
// text of the body's blocks (`_type: "block"`, spec §3); code listings, images and tables are
// not prose and are not counted.

export const WORDS_PER_MINUTE = 200;
export const UNKNOWN_BODY_MINUTES = 5;

export function readingTimeMinutes(body: unknown): number {
  if (!Array.isArray(body)) return UNKNOWN_BODY_MINUTES;
  const words = body.reduce<number>((sum, block) => sum + countWords(blockText(block)), 0);
  return Math.max(1, Math.ceil(words / WORDS_PER_MINUTE));
}

function blockText(block: unknown): string {
  if (!block || typeof block !== "object") return "";
  const { _type, children } = block as { _type?: unknown; children?: unknown };
  if (_type !== "block" || !Array.isArray(children)) return "";
  return children
    .map((child) => (child && typeof child === "object" ? (child as { text?: unknown }).text : undefined))
    .filter((text): text is string => typeof text === "string")
    .join("");
}

function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? 0 : trimmed.split(/\s+/).length;
}

export function readingTimeLabel(minutes: number): string {
  return `${minutes} min read`;
}
