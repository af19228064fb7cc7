// packyard logout: forgets the stored token. The token itself stays valid until it is deleted
// on the API keys page: the API has no route to revoke a key with itself.
import type { Command } from "../command.ts";
import { configPath, readStoredConfig, removeStoredConfig, tokenPrefix } from "../config.ts";

export const logoutCommand: Command = {
  usage: "logout",
  summary: "Remove the stored token",
  args: { min: 0, max: 0 },
  async run(context) {
    const path = configPath(context.env);
    let stored: ReturnType<typeof readStoredConfig>;
    try {
      stored = readStoredConfig(context.env);
    } catch {
      stored = undefined; // a damaged file goes too
    }
    removeStoredConfig(context.env);
    context.result({ loggedOut: stored !== undefined, server: stored?.server ?? null, config: path }, () => {
      if (!stored) return context.print(`Not logged in: no token stored in ${path}`);
      context.print(
        `Logged out of ${stored.server}: removed token ${tokenPrefix(stored.token)} from ${path}.`,
      );
      context.print(`The token still works until you delete it on ${stored.server}/api-keys.`);
    });
  },
};
