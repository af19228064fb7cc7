// The entitlement tokens pages' action, for a project's tokens and an organization's alike: create
// (its secret in the answer, once), enable or disable, rotate, delete, through the same use cases
// as the API (server/entitlements/use-cases.ts).
import {
  ENTITLEMENT_USAGE_DEFAULT_DAYS,
  type EntitlementUsageDay,
  rotateEntitlementInput,
} from "@packyard/contract/entitlements.ts";
import { data } from "react-router";
import { z } from "zod";
import { flushDownloadCounts } from "../../server/billing/usage.ts";
import { entitlementUsage } from "../../server/entitlements/storage.ts";
import {
  createEntitlement,
  deleteEntitlement,
  type EntitlementScope,
  rotateEntitlement,
  updateEntitlement,
} from "../../server/entitlements/use-cases.ts";
import type { Db, PersonCaller } from "../../server/platform/core/use-case.ts";
import type { Services } from "../../server/services.ts";
import { createRequest, entitlementForm, orgEntitlementForm } from "../components/entitlements/forms.ts";
import { domainFailure, invalid, refused } from "./dashboard.server.ts";
import { type FormReply, parseForm } from "./forms.ts";

/** An answer that may carry a secret to show once. */
export interface SecretReply extends FormReply {
  secret?: {
    entitlementId: string;
    name: string;
    value: string;
    rotated: boolean;
    previousValidUntil: string | null;
    /** The projects it reads, as owner/slug: their setup commands are shown with it. */
    projects: string[];
  };
}

export async function entitlementAction(
  services: Pick<Services, "database" | "clock" | "config">,
  caller: PersonCaller,
  scope: EntitlementScope,
  form: FormData,
) {
  const deps = { db: services.database.db, clock: services.clock, limits: services.config };
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("entitlementId") ?? "");

  if (intent === "create") {
    const submission = parseForm(form, "organization" in scope ? orgEntitlementForm : entitlementForm);
    if (submission.status !== "success") return invalid(submission);
    const value = submission.value;
    try {
      const created = await createEntitlement(deps, caller, {
        ...scope,
        entitlement: {
          ...createRequest(value),
          ...("projects" in value ? { projects: value.projects as string[] } : {}),
        },
      });
      return data<SecretReply>({
        result: submission.reply({ resetForm: true }),
        message: "Entitlement token created",
        secret: {
          entitlementId: created.entitlement.id,
          name: created.entitlement.name,
          value: created.token,
          rotated: false,
          previousValidUntil: null,
          projects: created.entitlement.projects,
        },
      });
    } catch (error) {
      return domainFailure(submission, error);
    }
  }

  const submission = parseForm(form, z.object({}));
  try {
    switch (intent) {
      case "toggle": {
        const enabled = form.get("enabled") === "true";
        await updateEntitlement(deps, caller, { ...scope, id, entitlement: { enabled } });
        return data<FormReply>({
          result: submission.reply(),
          message: enabled ? "Token enabled" : "Token disabled",
        });
      }
      case "rotate": {
        const rotation = rotateEntitlementInput.safeParse({
          overlapHours: Number(form.get("overlapHours") ?? 24),
        });
        if (!rotation.success)
          return refused(submission, 400, {
            formError: rotation.error.issues[0]?.message ?? "Invalid overlap",
          });
        const rotated = await rotateEntitlement(deps, caller, { ...scope, id, rotation: rotation.data });
        return data<SecretReply>({
          result: submission.reply(),
          message: "Secret rotated",
          secret: {
            entitlementId: rotated.entitlement.id,
            name: rotated.entitlement.name,
            value: rotated.token,
            rotated: true,
            previousValidUntil: rotated.entitlement.previousValidUntil,
            projects: rotated.entitlement.projects,
          },
        });
      }
      case "delete":
        await deleteEntitlement(deps, caller, { ...scope, id });
        return data<FormReply>({ result: submission.reply(), message: "Token deleted" });
    }
  } catch (error) {
    return domainFailure(submission, error);
  }
  return refused(submission, 400, { formError: "Unknown action" });
}

const DAY_MS = 86_400_000;

/** Every day of the period, oldest first, with zeros where the token was not used. */
function everyDay(days: EntitlementUsageDay[], today: Date): EntitlementUsageDay[] {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const all: EntitlementUsageDay[] = [];
  for (let i = ENTITLEMENT_USAGE_DEFAULT_DAYS - 1; i >= 0; i--) {
    const day = new Date(today.getTime() - i * DAY_MS).toISOString().slice(0, 10);
    all.push(byDay.get(day) ?? { day, downloads: 0, installs: 0, bytes: 0, machines: 0 });
  }
  return all;
}

/** A token's use for its page: every day of the last 30 (UTC), this server's latest answers included. */
export async function entitlementUsageDays(db: Db, id: string, today: Date): Promise<EntitlementUsageDay[]> {
  const since = new Date(today.getTime() - (ENTITLEMENT_USAGE_DEFAULT_DAYS - 1) * DAY_MS)
    .toISOString()
    .slice(0, 10);
  await flushDownloadCounts(db);
  return everyDay(await entitlementUsage(db, id, since), today);
}
