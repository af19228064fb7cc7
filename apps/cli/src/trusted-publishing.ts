// Trusted publishing from CI (docs/ci/): with no Packyard secret stored in the CI, the CLI gets
// the job's OpenID Connect ID token — from GitHub Actions (ACTIONS_ID_TOKEN_REQUEST_URL and
// _TOKEN, present when the job has `permissions: id-token: write`), requested for the server's
// URL as the audience, or from PACKYARD_ID_TOKEN (GitLab's `id_tokens:`) — and trades it at
// POST /api/v1/trusted-publishing/token for a publish token of 15 minutes, used for the rest of
// the command.

import type { ApiClient } from "./api-client.ts";
import type { Env } from "./config.ts";
import { exchangeIdTokenAnswer } from "./contract.ts";
import { CliError, exitCodes } from "./errors.ts";

const ID_TOKEN_TIMEOUT_MS = 30_000;

/** The job's ID token for the audience `server`. */
export async function ciIdToken(env: Env, server: string): Promise<string> {
  const given = env.PACKYARD_ID_TOKEN;
  const requestUrl = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!requestUrl || !requestToken) {
    if (given) return given.trim();
    throw new CliError("NOT_LOGGED_IN", "No ID token: set PACKYARD_ID_TOKEN", exitCodes.auth);
  }
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    throw new CliError("OIDC_REQUEST_FAILED", "ACTIONS_ID_TOKEN_REQUEST_URL is not a URL", exitCodes.auth);
  }
  url.searchParams.set("audience", server);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${requestToken}`, accept: "application/json" },
      signal: AbortSignal.timeout(ID_TOKEN_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CliError(
      "OIDC_REQUEST_FAILED",
      `Could not get an ID token from GitHub Actions: ${(error as Error).message}`,
      exitCodes.auth,
    );
  }
  const body = (await response.json().catch(() => undefined)) as { value?: unknown } | undefined;
  if (!response.ok || typeof body?.value !== "string")
    throw new CliError(
      "OIDC_REQUEST_FAILED",
      `GitHub Actions gave no ID token (HTTP ${response.status}): the job needs "permissions: id-token: write"`,
      exitCodes.auth,
    );
  return body.value;
}

/**
 * A publish token for the job: its ID token traded at the server. `owner` narrows it to one
 * account's projects (needed when projects of several accounts trust the repository).
 */
export async function publishTokenFromCi(
  client: ApiClient,
  env: Env,
  owner: string | undefined,
): Promise<string> {
  const idToken = await ciIdToken(env, client.server);
  const answer = await client.call("POST", "/api/v1/trusted-publishing/token", exchangeIdTokenAnswer, {
    json: { token: idToken, ...(owner ? { owner } : {}) },
  });
  return answer.token;
}
