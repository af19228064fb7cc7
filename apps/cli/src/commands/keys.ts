// packyard keys list|create|delete: your API keys (the tokens CI and this CLI use). Managing
// keys is account-wide, so it needs the login token or a key with publish access to all
// projects. A new key's secret is printed once.
import { type Command, type CommandGroup, stringOption } from "../command.ts";
import type { ApiKeyInfo } from "../contract.ts";
import { usageError } from "../errors.ts";
import { shortTime, table } from "../output.ts";

const scopeText = (k: ApiKeyInfo) =>
  `${k.scope.access} ${k.scope.projects === "*" ? "all projects" : k.scope.projects.join(",")}`;

const list: Command = {
  usage: "keys list",
  summary: "List your API keys",
  args: { min: 0, max: 0 },
  async run(context) {
    const keys = await context.api().listApiKeys();
    context.result({ keys }, () =>
      context.print(
        keys.length === 0
          ? "No API keys."
          : table(
              ["ID", "NAME", "START", "SCOPE", "LAST USED", "EXPIRES"],
              keys.map((k) => [
                k.id,
                k.name ?? "-",
                k.start ?? "-",
                scopeText(k),
                k.lastRequest ? shortTime(k.lastRequest) : "never",
                k.expired ? "expired" : k.expiresAt ? shortTime(k.expiresAt) : "never",
              ]),
            ),
      ),
    );
  },
};

const create: Command = {
  usage: "keys create NAME [--access read|publish] [--projects SLUG,…] [--expires-days N|never]",
  summary: "Create an API key and print its secret (shown this once)",
  options: {
    access: { type: "string", value: "read|publish", description: "Default publish" },
    projects: {
      type: "string",
      value: "SLUG,…",
      description: "Only these projects, each SLUG or OWNER/SLUG (default: all)",
    },
    "expires-days": { type: "string", value: "N|never", description: "Default 90" },
  },
  args: { min: 1, max: 1 },
  async run(context, [name = ""], options) {
    const access = stringOption(options, "access") ?? "publish";
    if (access !== "read" && access !== "publish") throw usageError("--access must be read or publish");
    const expires = stringOption(options, "expires-days") ?? "90";
    if (expires !== "never" && !/^\d{1,4}$/.test(expires))
      throw usageError("--expires-days must be a number of days or never");
    const projects = stringOption(options, "projects");
    const key = await context.api().createApiKey({
      name,
      access,
      expiresInDays: expires === "never" ? null : Number(expires),
      projects: projects
        ? projects
            .split(",")
            .map((p) => p.trim())
            .filter(Boolean)
        : "*",
    });
    context.result({ key }, () => {
      context.print(
        `Created ${key.name} (${scopeText(key)}, ${key.expiresAt ? `expires ${shortTime(key.expiresAt)}` : "never expires"}).`,
      );
      context.print("The secret is shown only now:");
      context.print(key.key);
    });
  },
};

const remove: Command = {
  usage: "keys delete ID",
  summary: "Delete an API key (anything using it stops working at once)",
  args: { min: 1, max: 1 },
  async run(context, [id = ""]) {
    await context.api().deleteApiKey(id);
    context.result({ deleted: id }, () => context.print(`Deleted API key ${id}`));
  },
};

export const keysCommand: CommandGroup = {
  summary: "Your API keys",
  subcommands: { list, create, delete: remove },
};
