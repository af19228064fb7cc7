// What every format's setup script (setup.<format>.sh) writes the same way: quoted values, and
// the read token the script was fetched with.

/** A value as one single-quoted shell word. */
export const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * The token a script was fetched with (`curl -fsSL -u TOKEN: …/setup.deb.sh | sudo bash`), as the
 * script may hold it inside double quotes: letters, digits, _ and - only, else none (the script
 * then asks for PACKYARD_TOKEN). Entitlement tokens and API keys are made of those.
 */
export const embeddableToken = (token: string | undefined) =>
  token && /^[A-Za-z0-9_-]+$/.test(token) ? token : "";
