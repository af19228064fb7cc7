// Personal publish tokens for the packyard CLI (/auth/generate-token): an API key for all of the
// user's projects with publish access, named after the day it was made.
import type { Services } from "../../server/services.ts";
import {
  type CreatedKey,
  createApiKey,
  type ExpiryChoice,
  expiresInSeconds,
  KEY_NAME_MAX,
} from "./api-keys.server.ts";

export { callbackWith, checkLoopbackCallback, checkState } from "./loopback-callback.ts";

/** "CLI on 2025-06-01" (UTC), the default name of a CLI token. */
export function defaultTokenName(now = new Date()): string {
  return `CLI on ${now.toISOString().slice(0, 10)}`;
}

export function tokenName(raw: string | null | undefined, now = new Date()): string {
  const name = (raw ?? "").trim().slice(0, KEY_NAME_MAX);
  return name || defaultTokenName(now);
}

export async function createCliToken(
  services: Services,
  userId: string,
  options: { name?: string; expiry?: ExpiryChoice },
  address: string | null,
): Promise<CreatedKey> {
  return createApiKey(
    services,
    userId,
    {
      name: tokenName(options.name),
      expiresIn: expiresInSeconds(options.expiry ?? "never"),
      scope: { projects: "*", access: "publish" },
    },
    address,
  );
}
