// An account's usage against its plan: storage, downloads this month, projects, releases.
import type { Usage } from "@packyard/contract";
import { plans } from "@packyard/contract/plans.ts";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { accountPlan } from "./account-plan.ts";
import { currentMonth } from "./downloads.ts";

export async function accountUsage(db: Kysely<Database>, ownerId: string): Promise<Usage> {
  const plan = plans[(await accountPlan(db, ownerId)).plan];
  const storage = await db
    .selectFrom("release_file")
    .innerJoin("release", "release.id", "release_file.release_id")
    .innerJoin("project", "project.id", "release.project_id")
    .select((eb) => eb.fn.sum<number | string | null>("release_file.size").as("bytes"))
    .where("project.owner_id", "=", ownerId)
    .executeTakeFirst();
  const projects = await db
    .selectFrom("project")
    .select(["visibility", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("owner_id", "=", ownerId)
    .groupBy("visibility")
    .execute();
  const releases = await db
    .selectFrom("release")
    .innerJoin("project", "project.id", "release.project_id")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("project.owner_id", "=", ownerId)
    .executeTakeFirstOrThrow();
  const month = await db
    .selectFrom("download_month")
    .select(["downloads", "bytes"])
    .where("owner_id", "=", ownerId)
    .where("month", "=", currentMonth())
    .executeTakeFirst();
  const count = (v: string) => Number(projects.find((p) => p.visibility === v)?.n ?? 0);
  return {
    plan: plan.id,
    storageBytes: Number(storage?.bytes ?? 0),
    storageLimitBytes: plan.storageBytes,
    downloadBytesThisMonth: Number(month?.bytes ?? 0),
    downloadLimitBytesPerMonth: plan.downloadBytesPerMonth,
    downloadsThisMonth: Number(month?.downloads ?? 0),
    projects: count("public") + count("private"),
    privateProjects: count("private"),
    releases: Number(releases.n),
  };
}
