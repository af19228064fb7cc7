// The self-hoster's command line: `npm run packyard -- users create --email … --username …`,
// `users set-plan --username … --plan …` and `migrate`. Runs against the same configuration
// (environment) as the server.
import { randomBytes } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import { parseArgs } from "node:util";
import { emailSchema, onboardingSchema } from "@packyard/contract/account.ts";
import { type PlanId, parsePlan, planIds, plans } from "@packyard/contract/plans.ts";
import { z } from "zod";
import { assertUsernameAvailable, UsernameTakenError } from "./accounts/usernames.ts";
import { authOptions } from "./auth/auth.ts";
import { accountPlan, clearOperatorPlan, setOperatorPlan } from "./billing/plan.ts";
import { ConfigError, loadConfig } from "./platform/config/config.ts";
import { openDatabase } from "./platform/db/database.ts";
import { migrateDatabase } from "./platform/db/migrate.ts";
import { migrateJobSchema } from "./platform/jobs/pg-boss-queue.ts";
import { createMailer } from "./platform/mail/mailer.ts";
import { createLogger } from "./platform/observability/logger.ts";
import { createServices, type Services } from "./services.ts";

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const CREATE_USAGE = `Usage: packyard users create --email EMAIL --username USERNAME [--name NAME] [--password PASSWORD]

Creates a verified user who can sign in at once. Without --password a random password is
generated and printed once.`;

const SET_PLAN_USAGE = `Usage: packyard users set-plan --username USERNAME --plan basic|starter|pro [--until DATE]
       packyard users set-plan --username USERNAME --clear

Puts the user (or the organization: its slug as USERNAME) on a plan chosen by the operator,
whatever they pay through Stripe, for good or until DATE (YYYY-MM-DD: through that day, UTC; or
an ISO time). --clear removes it: the Stripe subscription, or Basic, decides again.`;

const MIGRATE_USAGE = `Usage: packyard migrate

Brings the database's schema up to date (better-auth's tables, then Packyard's migrations) and
exits. Servers also do it when they start; on PostgreSQL either way takes an advisory lock, so
any number of them may run at once.`;

const USAGE = `${CREATE_USAGE}\n\n${SET_PLAN_USAGE}\n\n${MIGRATE_USAGE}`;

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
  // Taken whatever its case, or held after a rename or a deleted account (decisions 014, 019).
  try {
    await assertUsernameAvailable(db, "", input.username);
  } catch (error) {
    if (error instanceof UsernameTakenError)
      throw new CliError(`the username ${input.username} is already taken`);
    throw error;
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
  if (group === "users" && command === "set-plan") return setPlanCommand(rest, env, io);
  if (group === "migrate") return migrateCommand(argv.slice(1), env, io);
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
    io.err(`${(error as Error).message}\n\n${CREATE_USAGE}`);
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
  const config = readConfig(env, io);
  if (!config) return 78;
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

async function migrateCommand(
  args: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  if (args.length > 0) {
    io.err(`unexpected argument: ${args[0]}\n\n${MIGRATE_USAGE}`);
    return 2;
  }
  const config = readConfig(env, io);
  if (!config) return 78;
  const logger = createLogger("warn");
  const database = openDatabase(config.database, (error) =>
    logger.warn(`database connection: ${error.message}`),
  );
  try {
    const options = authOptions({
      config,
      dialect: database.dialect,
      dbType: database.kind,
      mailer: createMailer({
        smtpUrl: config.smtpUrl,
        from: config.mailFrom,
        outboxDir: config.outboxDir,
        logger,
      }),
    });
    const { authChanges, applied } = await migrateDatabase(database.db as never, options);
    // The job queue's tables (pg-boss installs and upgrades them under its own lock).
    if (config.database.kind === "postgres") await migrateJobSchema(config.database.url);
    const where =
      database.kind === "postgres"
        ? "PostgreSQL"
        : `SQLite (${config.database.kind === "sqlite" ? config.database.path : ""})`;
    if (authChanges === 0 && applied.length === 0) {
      io.out(`The ${where} database is up to date.`);
    } else {
      io.out(
        `Migrated the ${where} database: ${authChanges} better-auth table change(s), ${applied.length} Packyard migration(s)${applied.length > 0 ? ` (${applied.join(", ")})` : ""}.`,
      );
    }
    return 0;
  } catch (error) {
    io.err(`packyard: ${(error as Error).message}`);
    return 1;
  } finally {
    await database.close();
  }
}

function readConfig(env: Record<string, string | undefined>, io: CliIo) {
  try {
    return loadConfig(withCallerDataDir(env));
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return undefined;
    }
    throw error;
  }
}

/**
 * `npm run packyard -- …` runs in apps/web, while `npm start` runs at the repository root: a
 * relative DATA_DIR (the default `./data` included) is taken from where npm was invoked
 * (INIT_CWD), so both find the same data.
 */
export function withCallerDataDir(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const dataDir = env.DATA_DIR || "./data";
  if (!env.INIT_CWD || isAbsolute(dataDir)) return env;
  return { ...env, DATA_DIR: resolve(env.INIT_CWD, dataDir) };
}

/**
 * The end of an --until value: a day (YYYY-MM-DD) lasts through that day in UTC; a time is
 * taken as is. Undefined when it is not a date.
 */
export function parseUntil(value: string): Date | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) return undefined;
    return new Date(day.getTime() + 24 * 60 * 60 * 1000);
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value)) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

function untilText(given: string | undefined, until: Date | undefined): string {
  if (!given || !until) return "until you change it";
  if (/^\d{4}-\d{2}-\d{2}$/.test(given)) return `through ${given} (UTC)`;
  return `until ${until.toISOString()}`;
}

async function setPlanCommand(
  args: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
  now = new Date(),
): Promise<number> {
  let values: { username?: string; plan?: string; until?: string; clear?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        username: { type: "string" },
        plan: { type: "string" },
        until: { type: "string" },
        clear: { type: "boolean" },
      },
      strict: true,
    }));
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${SET_PLAN_USAGE}`);
    return 2;
  }
  const problems: string[] = [];
  if (!values.username) problems.push("--username is required");
  let plan: PlanId | undefined;
  if (values.clear) {
    if (values.plan !== undefined || values.until !== undefined)
      problems.push("--clear takes no --plan or --until");
  } else if (values.plan === undefined) {
    problems.push(`--plan is required: one of ${planIds.join(", ")}`);
  } else {
    plan = parsePlan(values.plan.toLowerCase());
    if (!plan) problems.push(`--plan must be one of ${planIds.join(", ")}, not "${values.plan}"`);
  }
  let until: Date | undefined;
  if (values.until !== undefined) {
    until = parseUntil(values.until);
    if (!until) problems.push(`--until must be a date (YYYY-MM-DD) or an ISO time, not "${values.until}"`);
    else if (until <= now) problems.push(`--until must be in the future, not "${values.until}"`);
  }
  if (problems.length > 0) {
    for (const problem of problems) io.err(problem);
    io.err(`\n${SET_PLAN_USAGE}`);
    return 2;
  }
  const config = readConfig(env, io);
  if (!config) return 78;
  const services = await createServices(config, { logger: createLogger("warn") });
  try {
    const db = services.database.db;
    const user = await db
      .selectFrom("user")
      .select(["id", "username"])
      .where((eb) => eb(eb.fn("lower", ["username"]), "=", values.username!.toLowerCase()))
      .executeTakeFirst();
    if (!user) {
      io.err(`packyard: no user or organization has the name ${values.username}`);
      return 1;
    }
    if (values.clear) {
      const removed = await clearOperatorPlan(db, user.id);
      const now = await accountPlan(db, user.id);
      io.out(
        `${removed ? "Removed the operator's plan of" : "There was no operator's plan for"} ${user.username}; they are on the ${plans[now.plan].name} plan (${now.source === "subscription" ? "their Stripe subscription" : "the default"}).`,
      );
      return 0;
    }
    await setOperatorPlan(db, user.id, plan!, until);
    io.out(
      `${user.username} is on the ${plans[plan!].name} plan ${untilText(values.until, until)} (set by the operator; it takes precedence over any Stripe subscription).`,
    );
    if (!config.planLimits) io.out("PLAN_LIMITS=off: this server enforces no plan limits at the moment.");
    return 0;
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
