// The retention section of /projects/{slug}/settings (decision 034): its form, read the same way
// in the browser and the action, and the action's two intents — preview (the dry run of the
// rules as typed, nothing saved or deleted) and save (through the same use case as
// PUT /api/v1/projects/{slug}/retention).
import type { RetentionPlan } from "@packyard/contract";
import { data } from "react-router";
import { type ProjectRow, usernameOf } from "../../server/projects/storage.ts";
import { previewRetention } from "../../server/retention/run.ts";
import { changeRetentionSettings } from "../../server/retention/use-cases.ts";
import type { Services } from "../../server/services.ts";
import { sessionActor } from "./dashboard.server.ts";
import { type FormReply, parseForm } from "./forms.ts";
import { retentionForm } from "./retention-form.ts";

/** `form` tells the settings page this answer is the retention section's (posted without JavaScript). */
export type RetentionReply = FormReply & { form: "retention"; plan?: RetentionPlan };

export async function retentionAction(
  services: Pick<Services, "database" | "jobs" | "clock">,
  user: { id: string },
  project: ProjectRow,
  formData: FormData,
  address: string,
) {
  const submission = parseForm(formData, retentionForm);
  if (submission.status !== "success")
    return data<RetentionReply>(
      { result: submission.reply(), code: "VALIDATION_FAILED", form: "retention" },
      { status: 400 },
    );
  const { intent, ...rules } = submission.value;
  const db = services.database.db;
  const plan = await previewRetention(db, project.id, rules, services.clock());
  if (intent === "retention-preview") {
    // The values stay in the form: the preview is of what is typed, not saved.
    return data<RetentionReply>({ result: submission.reply(), plan, form: "retention" });
  }
  const settings = await changeRetentionSettings(
    { db, jobs: services.jobs },
    { actor: sessionActor(user), address },
    // The project the page already reached, named as the use case finds it.
    { project: `${await usernameOf(db, project.owner_id)}/${project.slug}`, rules },
  );
  return data<RetentionReply>({
    result: submission.reply(),
    plan,
    form: "retention",
    message: settings.enabled
      ? `Retention rules saved and on: ${plan.remove.length === 0 ? "nothing to delete now" : `deleting ${plan.remove.length} release${plan.remove.length === 1 ? "" : "s"}`}`
      : "Retention rules saved (off: nothing is deleted)",
  });
}
