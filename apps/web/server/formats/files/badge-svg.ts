// Shields-style flat badges (decision 033): "version | 1.4.2", "downloads | 1.2k/month". Pure:
// text in, SVG out. Each side is as wide as its text in 11px Verdana (the widths below, rounded
// from the font's advance widths), the text escaped, the whole labelled for screen readers
// (role="img", aria-label, <title>) the way shields.io labels its own.

export interface Badge {
  label: string;
  value: string;
  /** The value side's colour: a #rgb or #rrggbb. */
  color?: string;
}

export const BADGE_COLORS = { ok: "#4c1", info: "#007ec6", none: "#9f9f9f" } as const;

/** At most this many characters of a value are shown (a version may be 128 long). */
const MAX_CHARS = 40;

// Advance widths of 11px Verdana, in tenths of a pixel, for the characters badges show most;
// others count as a wide lowercase letter.
const WIDTHS: Record<string, number> = {
  " ": 38,
  "!": 43,
  '"': 50,
  "#": 90,
  $: 70,
  "%": 119,
  "&": 80,
  "'": 30,
  "(": 50,
  ")": 50,
  "*": 70,
  "+": 90,
  ",": 40,
  "-": 50,
  ".": 40,
  "/": 50,
  ":": 50,
  ";": 50,
  "<": 90,
  "=": 90,
  ">": 90,
  "?": 60,
  "@": 110,
  _: 70,
  "~": 90,
  "|": 50,
  "0": 70,
  "1": 70,
  "2": 70,
  "3": 70,
  "4": 70,
  "5": 70,
  "6": 70,
  "7": 70,
  "8": 70,
  "9": 70,
  a: 67,
  b: 69,
  c: 58,
  d: 69,
  e: 66,
  f: 38,
  g: 69,
  h: 70,
  i: 30,
  j: 38,
  k: 65,
  l: 30,
  m: 107,
  n: 70,
  o: 67,
  p: 69,
  q: 69,
  r: 47,
  s: 57,
  t: 43,
  u: 70,
  v: 65,
  w: 90,
  x: 65,
  y: 65,
  z: 58,
  A: 75,
  B: 75,
  C: 77,
  D: 85,
  E: 70,
  F: 63,
  G: 85,
  H: 83,
  I: 46,
  J: 50,
  K: 76,
  L: 61,
  M: 92,
  N: 82,
  O: 87,
  P: 66,
  Q: 87,
  R: 77,
  S: 75,
  T: 68,
  U: 81,
  V: 75,
  W: 110,
  X: 75,
  Y: 68,
  Z: 75,
};

/** The text's width at 11px Verdana, in tenths of a pixel. */
export function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += WIDTHS[ch] ?? 70;
  return width;
}

const escapeXml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[ch]!,
  );

const shorten = (text: string) => {
  // Control characters are not allowed in XML: dropped.
  const chars = [...text].filter((ch) => ch.charCodeAt(0) > 0x1f && ch !== "\x7f");
  return chars.length > MAX_CHARS ? `${chars.slice(0, MAX_CHARS - 1).join("")}…` : chars.join("");
};

export function renderBadge(badge: Badge): string {
  const label = shorten(badge.label);
  const value = shorten(badge.value);
  const color = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(badge.color ?? "") ? badge.color! : BADGE_COLORS.info;
  // Tenths of a pixel, as shields draws text at scale(.1): 5px of padding either side.
  const labelText = textWidth(label);
  const valueText = textWidth(value);
  const labelWidth = Math.round(labelText / 10) + 10;
  const valueWidth = Math.round(valueText / 10) + 10;
  const width = labelWidth + valueWidth;
  const title = escapeXml(`${label}: ${value}`);
  const text = (content: string, center: number, length: number) => {
    const escaped = escapeXml(content);
    return (
      `<text aria-hidden="true" x="${center}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="${length}">${escaped}</text>` +
      `<text x="${center}" y="140" transform="scale(.1)" fill="#fff" textLength="${length}">${escaped}</text>`
    );
  };
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${labelWidth}" height="20" fill="#555"/><rect x="${labelWidth}" width="${valueWidth}" height="20" fill="${color}"/><rect width="${width}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">` +
    text(label, labelWidth * 5, labelText) +
    text(value, labelWidth * 10 + valueWidth * 5, valueText) +
    `</g></svg>`
  );
}
