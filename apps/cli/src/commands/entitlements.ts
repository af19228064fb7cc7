// packyard entitlements list|create|show|disable|enable|rotate|delete: the tokens a publisher
// gives each customer to read a private project (docs/entitlements.md). SCOPE is a project
// (SLUG or OWNER/SLUG), or with --org an organization. A token's secret is printed once, when it
// is created or rotated.
import type { EntitlementOwner } from "../api.ts";
import { type Command, type CommandGroup, type OptionValues, stringOption } from "../command.ts";
import type { EntitlementSummary } from "../contract.ts";
import { usageError } from "../errors.ts";
import { formatBytes, shortTime, table } from "../output.ts";

const orgOption = {
  org: { type: "boolean", description: "SCOPE is an organization: its tokens across chosen projects" },
} as const;

const ownerOf = (scope: string, options: OptionValues): EntitlementOwner =>
  options.org === true ? { org: scope } : { project: scope };

/** A comma-separated option's items; `--groups ""` is the one item "" (the YUM root). */
const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value.trim() === ""
      ? [""]
      : value
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean);

function whole(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw usageError(`--${option} must be a whole number`);
  return Number(value);
}

function limitsText(t: EntitlementSummary): string {
  const parts: string[] = [];
  if (t.validFrom) parts.push(`from ${shortTime(t.validFrom)}`);
  if (t.validUntil) parts.push(`until ${shortTime(t.validUntil)}`);
  if (t.maxDownloads !== null) parts.push(`${t.downloads}/${t.maxDownloads} downloads`);
  if (t.maxBytesPerMonth !== null)
    parts.push(`${formatBytes(t.bytesThisMonth)}/${formatBytes(t.maxBytesPerMonth)} this month`);
  if (t.suites) parts.push(`suites ${t.suites.join(",")}`);
  if (t.groups) parts.push(`groups ${t.groups.map((g) => g || "(root)").join(",")}`);
  if (t.versionRange) parts.push(`versions ${t.versionRange}`);
  return parts.length > 0 ? parts.join("; ") : "none";
}

const limitOptions = {
  note: { type: "string", value: "TEXT", description: "A note (an order number)" },
  "valid-from": { type: "string", value: "TIME", description: "ISO 8601: refused before" },
  "valid-until": { type: "string", value: "TIME", description: "ISO 8601: refused after" },
  "max-downloads": { type: "string", value: "N", description: "Files it may download, in all" },
  "max-bytes-per-month": { type: "string", value: "N", description: "Bytes it may download a month" },
  suites: { type: "string", value: "SUITE,…", description: "APT suites it reads (default: all)" },
  groups: { type: "string", value: "GROUP,…", description: "YUM groups it reads (default: all)" },
  versions: { type: "string", value: "RANGE", description: 'Versions it reads, e.g. ">=2.0 <3.0"' },
} as const;

/** The request body of the limit options given. */
function limitsOf(options: OptionValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value;
  };
  set("note", stringOption(options, "note"));
  set("validFrom", stringOption(options, "valid-from"));
  set("validUntil", stringOption(options, "valid-until"));
  set("maxDownloads", whole(stringOption(options, "max-downloads"), "max-downloads"));
  set("maxBytesPerMonth", whole(stringOption(options, "max-bytes-per-month"), "max-bytes-per-month"));
  set("suites", list(stringOption(options, "suites")));
  set("groups", list(stringOption(options, "groups")));
  set("versionRange", stringOption(options, "versions"));
  return body;
}

const listCommand: Command = {
  usage: "entitlements list SCOPE [--org]",
  summary: "List the entitlement tokens of a project or an organization",
  options: orgOption,
  args: { min: 1, max: 1 },
  async run(context, [scope = ""], options) {
    const entitlements = await context.api().listEntitlements(ownerOf(scope, options));
    context.result({ entitlements }, () =>
      context.print(
        entitlements.length === 0
          ? "No entitlement tokens."
          : table(
              ["ID", "NAME", "START", "STATE", "LIMITS", "LAST USED"],
              entitlements.map((t) => [
                t.id,
                t.name,
                t.start,
                t.enabled ? "enabled" : "disabled",
                limitsText(t),
                t.lastUsed ? shortTime(t.lastUsed.at) : "never",
              ]),
            ),
      ),
    );
  },
};

const create: Command = {
  usage: "entitlements create SCOPE NAME [--org --projects SLUG,…] [limits]",
  summary: "Create an entitlement token for a customer and print its secret (shown this once)",
  options: {
    ...orgOption,
    projects: { type: "string", value: "SLUG,…", description: "With --org: the projects it reads" },
    ...limitOptions,
  },
  args: { min: 2, max: 2 },
  async run(context, [scope = "", name = ""], options) {
    const owner = ownerOf(scope, options);
    const projects = list(stringOption(options, "projects"));
    if ("org" in owner && !projects) throw usageError("--org needs --projects: the projects the token reads");
    if ("project" in owner && projects) throw usageError("--projects is for an organization's token (--org)");
    const created = await context
      .api()
      .createEntitlement(owner, { name, ...limitsOf(options), ...(projects ? { projects } : {}) });
    context.result(created, () => {
      const t = created.entitlement;
      context.print(
        `Created ${t.name} (${t.id}) reading ${t.projects.join(", ")}; limits: ${limitsText(t)}.`,
      );
      context.print("The secret is shown only now:");
      context.print(created.token);
    });
  },
};

const show: Command = {
  usage: "entitlements show SCOPE ID [--org] [--days N]",
  summary: "Show a token, its limits and its usage per day",
  options: { ...orgOption, days: { type: "string", value: "N", description: "Days of usage (default 30)" } },
  args: { min: 2, max: 2 },
  async run(context, [scope = "", id = ""], options) {
    const days = whole(stringOption(options, "days"), "days");
    const { entitlement: t, days: usage } = await context
      .api()
      .entitlementUsage(ownerOf(scope, options), id, days);
    context.result({ entitlement: t, usage }, () => {
      context.print(`${t.name} (${t.id}), ${t.enabled ? "enabled" : "disabled"}, starts ${t.start}`);
      if (t.note) context.print(`Note: ${t.note}`);
      context.print(`Projects: ${t.projects.join(", ")}`);
      context.print(`Limits: ${limitsText(t)}`);
      if (t.previousValidUntil)
        context.print(`Previous secret works until ${shortTime(t.previousValidUntil)}`);
      context.print(
        `Used: ${t.downloads} downloads, ${formatBytes(t.bytesThisMonth)} this month; last ${
          t.lastUsed
            ? `${shortTime(t.lastUsed.at)} from ${t.lastUsed.address ?? "?"} (${t.lastUsed.client ?? "?"})`
            : "never"
        }`,
      );
      context.print(
        usage.length === 0
          ? "No use in the period."
          : table(
              ["DAY", "DOWNLOADS", "INSTALLS", "BYTES", "MACHINES"],
              usage.map((d) => [
                d.day,
                String(d.downloads),
                String(d.installs),
                formatBytes(d.bytes),
                String(d.machines),
              ]),
            ),
      );
    });
  },
};

function toggle(enabled: boolean): Command {
  const verb = enabled ? "enable" : "disable";
  return {
    usage: `entitlements ${verb} SCOPE ID [--org]`,
    summary: enabled ? "Let a disabled token read again" : "Stop a token at once (enable it again later)",
    options: orgOption,
    args: { min: 2, max: 2 },
    async run(context, [scope = "", id = ""], options) {
      const entitlement = await context.api().updateEntitlement(ownerOf(scope, options), id, { enabled });
      context.result({ entitlement }, () => context.print(`${entitlement.name} is ${verb}d.`));
    },
  };
}

const rotate: Command = {
  usage: "entitlements rotate SCOPE ID [--org] [--overlap-hours N]",
  summary: "Give a token a new secret (printed once); the old one works for the overlap",
  options: {
    ...orgOption,
    "overlap-hours": {
      type: "string",
      value: "N",
      description: "Hours the old secret still works (default 24)",
    },
  },
  args: { min: 2, max: 2 },
  async run(context, [scope = "", id = ""], options) {
    const overlap = whole(stringOption(options, "overlap-hours"), "overlap-hours");
    const rotated = await context.api().rotateEntitlement(ownerOf(scope, options), id, overlap);
    context.result(rotated, () => {
      const until = rotated.entitlement.previousValidUntil;
      context.print(
        `New secret for ${rotated.entitlement.name}; the old one ${until ? `works until ${shortTime(until)}` : "has stopped"}.`,
      );
      context.print("The secret is shown only now:");
      context.print(rotated.token);
    });
  },
};

const remove: Command = {
  usage: "entitlements delete SCOPE ID [--org]",
  summary: "Delete a token (it stops working at once)",
  options: orgOption,
  args: { min: 2, max: 2 },
  async run(context, [scope = "", id = ""], options) {
    await context.api().deleteEntitlement(ownerOf(scope, options), id);
    context.result({ deleted: id }, () => context.print(`Deleted entitlement token ${id}`));
  },
};

export const entitlementsCommand: CommandGroup = {
  summary: "Entitlement tokens: your customers' read tokens",
  subcommands: {
    list: listCommand,
    create,
    show,
    disable: toggle(false),
    enable: toggle(true),
    rotate,
    delete: remove,
  },
};
