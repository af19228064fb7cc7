// Project settings' Transfer card (decision 040): move the project to an organization the user
// administers, or back to their own account. The action (routes/_app/project-settings.tsx) calls
// transferProject and sends the browser to the project's new page.
import { useForm } from "@conform-to/react";
import { transferProjectSchema } from "@packyard/contract/orgs.ts";
import { ArrowRightLeft } from "lucide-react";
import { useFetcher } from "react-router";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { Label } from "../ui/label.tsx";
import { FormAlert, SubmitButton } from "./project-dialogs.tsx";

export const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring";

export interface TransferTarget {
  /** An organization's slug, or the user's username. */
  owner: string;
  label: string;
}

export function TransferProjectCard({
  project,
  targets,
}: {
  project: { owner: string; slug: string; name: string };
  targets: TransferTarget[];
}) {
  const fetcher = useFetcher<FormReply>();
  const [form, fields] = useForm({
    id: "transfer-project",
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, transferProjectSchema),
  });
  const busy = fetcher.state !== "idle";
  const fieldError = fields.owner.errors?.[0];
  return (
    <Card data-testid="transfer-project">
      <CardHeader>
        <CardTitle>Transfer</CardTitle>
        <CardDescription>
          Move {project.name} with its releases, files, signing keys and repositories to an organization you
          administer, or back to your own account. Its old URLs ({project.owner}/{project.slug}) keep working
          by redirect, so apt and dnf source lines and download links already in use go on installing.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {targets.length === 0 ? (
          <p className="text-sm text-muted-foreground">
            You administer no organization to move it to. Create one from the owner menu, or ask an
            organization's owner to make you an admin.
          </p>
        ) : (
          <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-4" noValidate>
            <input type="hidden" name="intent" value="transfer" />
            <FormAlert errors={form.errors} code={fetcher.data?.code} />
            <div className="grid gap-2">
              <Label htmlFor="transfer-owner">New owner</Label>
              <select
                id="transfer-owner"
                name={fields.owner.name}
                className={selectClass}
                aria-invalid={fieldError ? true : undefined}
                aria-describedby={fieldError ? "transfer-owner-error" : undefined}
                defaultValue={targets[0]?.owner}
              >
                {targets.map((target) => (
                  <option key={target.owner} value={target.owner}>
                    {target.label}
                  </option>
                ))}
              </select>
              {fieldError ? (
                <p id="transfer-owner-error" className="text-sm text-destructive">
                  {fieldError}
                </p>
              ) : null}
            </div>
            <div>
              <SubmitButton busy={busy}>
                <ArrowRightLeft aria-hidden="true" />
                Transfer project
              </SubmitButton>
            </div>
          </fetcher.Form>
        )}
      </CardContent>
    </Card>
  );
}
