// Where /auth/generate-token may send a new CLI token: only to a program listening on this
// machine's loopback interface, named exactly as http://127.0.0.1:PORT/… or
// http://localhost:PORT/… (RFC 8252 §7.3). Everything else — https, other hosts, a missing port,
// credentials in the URL, other schemes, look-alike hosts — is refused, so a link can never make
// the page hand a token to another site.

export type CallbackCheck = { ok: true; url: URL } | { ok: false; error: string };

export const CALLBACK_HELP =
  "The callback must be http://127.0.0.1:PORT/… or http://localhost:PORT/… on your own machine.";

const MAX_CALLBACK_LENGTH = 2000;
/** Scheme, exact host, explicit port, then an optional path (and query). No fragment. */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost):([0-9]{1,5})(?:[/?][^#\s\\]*)?$/;

export function checkLoopbackCallback(raw: string | null | undefined): CallbackCheck {
  if (!raw) return { ok: false, error: "No callback address was given." };
  if (raw.length > MAX_CALLBACK_LENGTH) return { ok: false, error: "The callback address is too long." };
  for (const ch of raw) {
    const code = ch.codePointAt(0)!;
    if (code <= 0x20 || code === 0x7f || code > 0x7e)
      return { ok: false, error: `The callback address contains characters it may not. ${CALLBACK_HELP}` };
  }
  const match = LOOPBACK.exec(raw);
  if (!match) return { ok: false, error: `This callback address is not allowed. ${CALLBACK_HELP}` };
  const port = Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return { ok: false, error: `The callback port must be between 1 and 65535. ${CALLBACK_HELP}` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: `This callback address is not a valid URL. ${CALLBACK_HELP}` };
  }
  // The parser must agree with the pattern: same scheme and host, no credentials.
  if (
    url.protocol !== "http:" ||
    url.hostname !== match[1] ||
    url.username !== "" ||
    url.password !== "" ||
    url.hash !== ""
  ) {
    return { ok: false, error: `This callback address is not allowed. ${CALLBACK_HELP}` };
  }
  return { ok: true, url };
}

/** A token's state parameter: what the CLI sent, echoed back; short and printable. */
export function checkState(
  raw: string | null | undefined,
): { ok: true; state: string } | { ok: false; error: string } {
  if (!raw) return { ok: false, error: "The request has no state parameter." };
  if (raw.length > 512) return { ok: false, error: "The state parameter is too long." };
  for (const ch of raw) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) return { ok: false, error: "The state parameter is not valid." };
  }
  return { ok: true, state: raw };
}

/** The callback with extra query parameters (existing ones are kept). */
export function callbackWith(url: URL, params: Record<string, string>): string {
  const next = new URL(url);
  for (const [name, value] of Object.entries(params)) next.searchParams.set(name, value);
  return next.toString();
}
