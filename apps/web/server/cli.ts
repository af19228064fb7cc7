// The self-hoster's command line: `npm run packyard -- users create --email … --username …`.
// Runs against the same configuration (environment) as the server.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { emailSchema, onboardingSchema } from "@packyard/contract/account.ts";
import { z } from "zod";
import { ConfigError, loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createServices, type Services } from "./services.ts";

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const USAGE = `Usage: packyard users create --email EMAIL --username USERNAME [--name NAME] [--password PASSWORD]

Creates a verified user who can sign in at once. Without --password a random password is
generated and printed once.`;

export class CliError extends Error {}

export async function createVerifiedUser(
  services: Services,
  input: { email: string; username: string; name: string; password: string },
): Promise<{ id: string }> {
  const { config, database } = services;
  if (input.password.length < config.passwordMinLength || input.password.length > config.passwordMaxLength) {
    throw new CliError(
      `--password must be ${config.passwordMinLength} to ${config.passwordMaxLength} characters long`,
    );
  }
  const db = database.db;
  if (await db.selectFrom("user").select("id").where("email", "=", input.email).executeTakeFirst()) {
    throw new CliError(`a user with the email ${input.email} already exists`);
  }
  if (await db.selectFrom("user").select("id").where("username", "=", input.username).executeTakeFirst()) {
    throw new CliError(`the username ${input.username} is already taken`);
  }
  const ctx = await services.auth.$context;
  const user = await ctx.internalAdapter.createUser(
    {
      email: input.email,
      name: input.name,
      emailVerified: true,
      username: input.username,
    },
    { method: "admin" },
  );
  await ctx.internalAdapter.linkAccount({
    userId: user.id,
    providerId: "credential",
    accountId: user.id,
    password: await ctx.password.hash(input.password),
  });
  return { id: user.id };
}

export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group !== "users" || command !== "create") {
    io.err(USAGE);
    return 2;
  }
  let values: { email?: string; username?: string; name?: string; password?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        email: { type: "string" },
        username: { type: "string" },
        name: { type: "string" },
        password: { type: "string" },
      },
      strict: true,
    }));
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const parsed = z
    .object({
      email: emailSchema.transform((e) => e.toLowerCase()),
      username: onboardingSchema.shape.username,
      name: onboardingSchema.shape.name,
    })
    .safeParse({
      email: values.email ?? "",
      username: values.username ?? "",
      name: values.name ?? values.username ?? "",
    });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) io.err(`--${String(issue.path[0])}: ${issue.message}`);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 78;
    }
    throw error;
  }
  const generated = values.password === undefined;
  const password = values.password ?? randomBytes(18).toString("base64url");
  const services = await createServices(config, { logger: createLogger("warn") });
  try {
    const { id } = await createVerifiedUser(services, { ...parsed.data, password });
    io.out(`Created user ${parsed.data.username} <${parsed.data.email}> (id ${id}).`);
    if (generated) io.out(`Password: ${password}\nIt is shown only now; the user can change it in Settings.`);
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`packyard: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await services.close();
  }
}

if (import.meta.main) {
  const code = await runCli(process.argv.slice(2), process.env, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exit(code);
}
