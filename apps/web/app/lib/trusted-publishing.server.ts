// The trusted publishing page's action (/projects/{slug}/publishing): add a publisher from the
// form, or remove one, through the same use cases as /api/v1/projects/{slug}/trusted-publishers
// (server/trusted-publishing/use-cases.ts).
import { describeTrustedPublisher } from "@packyard/contract/trusted-publishing.ts";
import { data } from "react-router";
import { z } from "zod";
import type { PersonCaller } from "../../server/platform/core/use-case.ts";
import type { Services } from "../../server/services.ts";
import { addTrustedPublisher, removeTrustedPublisher } from "../../server/trusted-publishing/use-cases.ts";
import { trustedPublisherForm } from "../components/trusted-publishing/forms.ts";
import { domainFailure, invalid, refused, succeeded } from "./dashboard.server.ts";
import { type FormReply, parseForm } from "./forms.ts";

export async function trustedPublisherAction(
  services: Pick<Services, "database" | "clock">,
  caller: PersonCaller,
  project: string,
  form: FormData,
) {
  const deps = { db: services.database.db, clock: services.clock };
  const intent = String(form.get("intent") ?? "");

  if (intent === "add") {
    const submission = parseForm(form, trustedPublisherForm);
    if (submission.status !== "success") return invalid(submission);
    try {
      const added = await addTrustedPublisher(deps, caller, { project, publisher: submission.value });
      // Not resetForm: Conform's reset answer has no status, and the page tells success by it
      // (the page starts a new form itself).
      return data<FormReply>({
        result: submission.reply(),
        message: `${describeTrustedPublisher(added)} may publish`,
      });
    } catch (error) {
      return domainFailure(submission, error);
    }
  }

  const submission = parseForm(form, z.object({}));
  if (intent === "remove") {
    try {
      await removeTrustedPublisher(deps, caller, { project, id: String(form.get("publisherId") ?? "") });
      return succeeded(submission, "Trusted publisher removed");
    } catch (error) {
      return domainFailure(submission, error);
    }
  }
  return refused(submission, 400, { formError: "Unknown action" });
}
