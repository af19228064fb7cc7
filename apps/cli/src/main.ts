// The command line: finds the command, parses its options (global ones may stand anywhere),
// prints help, runs it, and turns any failure into one line on stderr and a documented exit
// code (with --json, the error as JSON on stdout too).
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import type { Command, CommandGroup, OptionSpec } from "./command.ts";
import { entitlementsCommand } from "./commands/entitlements.ts";
import { keysCommand } from "./commands/keys.ts";
import { loginCommand } from "./commands/login.ts";
import { logoutCommand } from "./commands/logout.ts";
import { orgsCommand } from "./commands/orgs.ts";
import { projectsCommand } from "./commands/projects.ts";
import { pushCommand } from "./commands/push.ts";
import { releasesCommand } from "./commands/releases.ts";
import { signingKeysCommand } from "./commands/signing-keys.ts";
import { whoamiCommand } from "./commands/whoami.ts";
import { DEFAULT_SERVER } from "./config.ts";
import { type Context, cliVersion, createContext, type Io } from "./context.ts";
import { CliError, exitCodes, usageError } from "./errors.ts";
import { updateNotice } from "./update-notice.ts";

const commands: Record<string, Command | CommandGroup> = {
  login: loginCommand,
  logout: logoutCommand,
  whoami: whoamiCommand,
  push: pushCommand,
  releases: releasesCommand,
  projects: projectsCommand,
  keys: keysCommand,
  "signing-keys": signingKeysCommand,
  orgs: orgsCommand,
  entitlements: entitlementsCommand,
};

const globalOptions: Record<string, OptionSpec> = {
  server: {
    type: "string",
    value: "URL",
    description: `Packyard server (env PACKYARD_SERVER; default: the one you logged in to, else ${DEFAULT_SERVER})`,
  },
  token: {
    type: "string",
    value: "TOKEN",
    description: "API key to use (env PACKYARD_TOKEN; default: the stored login)",
  },
  json: { type: "boolean", description: "Print the result as JSON on stdout, for scripts" },
  help: { type: "boolean", short: "h", description: "Show help" },
  version: { type: "boolean", description: "Show the CLI's version" },
};

export const exitCodeHelp = [
  "Exit codes:",
  "  0  success",
  "  1  failure: network, server error, refused upload, checksum mismatch",
  "  2  usage: unknown command or option, missing or invalid argument",
  "  3  authentication: not logged in, token refused or not allowed, wrong owner, login cancelled",
  "  4  not found",
  "  5  conflict: the project or release exists, or a file of that name with other contents",
];

const isGroup = (entry: Command | CommandGroup): entry is CommandGroup => "subcommands" in entry;

export async function main(argv: string[], io: Io): Promise<number> {
  const json = argv.includes("--json");
  const session: { context?: Context } = {};
  let code: number;
  try {
    code = await run(argv, io, session);
  } catch (error) {
    code = report(error, io, json);
  }
  // After the command's own output, and only if it talked to a server.
  const server = session.context?.contactedServer();
  if (server) await updateNotice(io, server, { json });
  return code;
}

async function run(argv: string[], io: Io, session: { context?: Context }): Promise<number> {
  const at = commandIndex(argv);
  if (at === -1) {
    if (argv.includes("--version")) {
      io.stdout.write(`${cliVersion()}\n`);
      return exitCodes.ok;
    }
    if (argv.length > 0 && !argv.some((a) => a === "--help" || a === "-h")) {
      throw usageError(`No command in "${argv.join(" ")}"; run packyard --help`);
    }
    io.stdout.write(generalHelp());
    return exitCodes.ok;
  }
  let name = argv[at]!;
  let rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
  if (name === "help") {
    const topic = rest.find((a) => !a.startsWith("-"));
    const entry = topic ? commands[topic] : undefined;
    io.stdout.write(entry ? (isGroup(entry) ? groupHelp(topic!, entry) : commandHelp(entry)) : generalHelp());
    return exitCodes.ok;
  }
  const entry = commands[name];
  if (!entry) throw usageError(`Unknown command "${name}"; run packyard --help`);
  let command: Command;
  if (isGroup(entry)) {
    const sub = argv[at + 1];
    const wantsHelp = rest.includes("--help") || rest.includes("-h");
    if (sub === undefined || sub.startsWith("-")) {
      if (wantsHelp) {
        io.stdout.write(groupHelp(name, entry));
        return exitCodes.ok;
      }
      throw usageError(`packyard ${name} needs a subcommand: ${Object.keys(entry.subcommands).join(", ")}`);
    }
    const found = entry.subcommands[sub];
    if (!found) {
      throw usageError(
        `Unknown command "${name} ${sub}"; choose ${Object.keys(entry.subcommands).join(", ")}`,
      );
    }
    command = found;
    name = `${name} ${sub}`;
    rest = [...argv.slice(0, at), ...argv.slice(at + 2)];
  } else {
    command = entry;
  }

  const options = { ...globalOptions, ...command.options };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: parserOptions(options), allowPositionals: true, strict: true });
  } catch (error) {
    // Node's messages continue with advice about "--"; the first sentence is the point.
    const message = (error as Error).message.split(". ")[0]!.replace(/\.$/, "");
    throw usageError(`${message}; packyard ${name} --help lists the options`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(commandHelp(command));
    return exitCodes.ok;
  }
  const { min, max } = command.args;
  if (positionals.length < min || (max !== undefined && positionals.length > max)) {
    throw usageError(`Wrong number of arguments; usage: packyard ${command.usage}`);
  }
  const context = createContext(io, {
    server: typeof values.server === "string" ? values.server : undefined,
    token: typeof values.token === "string" ? values.token : undefined,
    json: values.json === true,
  });
  session.context = context;
  await command.run(context, positionals, values as Record<string, string | boolean | undefined>);
  return exitCodes.ok;
}

/** The first argument that is not an option or a global option's value. */
function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return i + 1 < argv.length ? i + 1 : -1;
    if (!arg.startsWith("-")) return i;
    const option = globalOptions[arg.slice(2)];
    if (option?.type === "string") i++;
  }
  return -1;
}

function parserOptions(options: Record<string, OptionSpec>): ParseArgsOptionsConfig {
  return Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [
      name,
      { type: spec.type, ...(spec.short ? { short: spec.short } : {}) },
    ]),
  );
}

function report(error: unknown, io: Io, json: boolean): number {
  const failure =
    error instanceof CliError
      ? error
      : new CliError(
          "INTERNAL",
          `Unexpected error: ${(error as Error)?.message ?? String(error)}`,
          exitCodes.failure,
        );
  io.stderr.write(`error: ${failure.message} (${failure.code})\n`);
  if (!(error instanceof CliError) && io.env.PACKYARD_DEBUG) io.stderr.write(`${(error as Error)?.stack}\n`);
  if (json) {
    const body = { error: { code: failure.code, message: failure.message, exitCode: failure.exitCode } };
    io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  }
  return failure.exitCode;
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const labels = Object.entries(options).map(([name, spec]) => [
    `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.value ? ` ${spec.value}` : ""}`,
    spec.description,
  ]);
  const width = Math.max(...labels.map(([label]) => label!.length));
  return labels.map(([label, description]) => `  ${label!.padEnd(width)}  ${description}`);
}

function commandLines(): string[] {
  const rows: [string, string][] = [];
  for (const entry of Object.values(commands)) {
    if (isGroup(entry))
      for (const sub of Object.values(entry.subcommands)) rows.push([sub.usage, sub.summary]);
    else rows.push([entry.usage, entry.summary]);
  }
  const width = Math.max(...rows.map(([usage]) => usage.length));
  return rows.map(([usage, summary]) => `  ${usage.padEnd(width)}  ${summary}`);
}

function generalHelp(): string {
  return [
    "packyard: publish releases to Packyard from a terminal or CI",
    "",
    "Usage: packyard COMMAND [options]",
    "",
    "Commands:",
    ...commandLines(),
    "",
    "Global options:",
    ...optionLines(globalOptions),
    "",
    "PROJECT is SLUG or OWNER/SLUG; OWNER is the token's user or one of the user's organizations.",
    "packyard COMMAND --help shows a command's options. Transient network errors and",
    "429/502/503/504 are retried up to 5 times.",
    "",
    ...exitCodeHelp,
    "",
  ].join("\n");
}

function commandHelp(command: Command): string {
  return [
    `Usage: packyard ${command.usage}`,
    "",
    command.summary,
    ...(command.details ? ["", ...command.details] : []),
    ...(command.options ? ["", "Options:", ...optionLines(command.options)] : []),
    "",
    "Global options:",
    ...optionLines(globalOptions),
    "",
    ...exitCodeHelp,
    "",
  ].join("\n");
}

function groupHelp(name: string, group: CommandGroup): string {
  const rows = Object.values(group.subcommands).map((c) => [c.usage, c.summary] as const);
  const width = Math.max(...rows.map(([usage]) => usage.length));
  return [
    `packyard ${name}: ${group.summary}`,
    "",
    ...rows.map(([usage, summary]) => `  packyard ${usage.padEnd(width)}  ${summary}`),
    "",
    `packyard ${name} SUBCOMMAND --help shows its options.`,
    "",
  ].join("\n");
}
