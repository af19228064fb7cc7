// A release's title and notes, edited in place (a Conform form, lib/forms.ts); the yanked banner;
// the Unyank button.
import { useForm } from "@conform-to/react";
import type { Release } from "@packyard/contract";
import { TriangleAlert, Undo2 } from "lucide-react";
import { useState } from "react";
import { useFetcher } from "react-router";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { FormField } from "../ui/form-field.tsx";
import { FormattedDate } from "./formatted-date.tsx";
import { releaseDetailsForm } from "./forms.ts";
import { NotesEditor } from "./notes-editor.tsx";
import { FormAlert, SubmitButton } from "./project-dialogs.tsx";

export const UPDATE_RELEASE_FETCHER = "update-release";
export const UNYANK_FETCHER = "unyank-release";

export function ReleaseDetailsForm({ release }: { release: Release }) {
  const fetcher = useFetcher<FormReply>({ key: UPDATE_RELEASE_FETCHER });
  const [form, fields] = useForm({
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, releaseDetailsForm),
  });
  const [title, setTitle] = useState(release.title ?? "");
  const [notes, setNotes] = useState(release.notes ?? "");
  const dirty = title !== (release.title ?? "") || notes !== (release.notes ?? "");
  const busy = fetcher.state !== "idle";
  return (
    <Card>
      <CardHeader>
        <CardTitle>Title and notes</CardTitle>
        <CardDescription>Shown on the public release page, above the files.</CardDescription>
      </CardHeader>
      <CardContent>
        <fetcher.Form
          method="post"
          id={form.id}
          onSubmit={form.onSubmit}
          className="grid grid-cols-1 gap-4"
          noValidate
        >
          <input type="hidden" name="intent" value="update" />
          <FormAlert errors={form.errors} code={fetcher.data?.code} />
          <FormField
            label="Title"
            name={fields.title.name}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            maxLength={200}
            placeholder="Optional"
            error={fields.title.errors?.[0]}
          />
          <NotesEditor
            name={fields.notes.name}
            value={notes}
            onChange={setNotes}
            error={fields.notes.errors?.[0]}
          />
          <div className="flex flex-wrap items-center justify-end gap-3">
            {dirty && !busy ? <span className="text-sm text-muted-foreground">Unsaved changes</span> : null}
            <Button
              type="button"
              variant="ghost"
              disabled={!dirty || busy}
              onClick={() => {
                setTitle(release.title ?? "");
                setNotes(release.notes ?? "");
              }}
            >
              Discard
            </Button>
            <SubmitButton busy={busy} disabled={!dirty}>
              Save changes
            </SubmitButton>
          </div>
        </fetcher.Form>
      </CardContent>
    </Card>
  );
}

export function UnyankButton({ variant = "outline" }: { variant?: "outline" | "default" }) {
  const fetcher = useFetcher<FormReply>({ key: UNYANK_FETCHER });
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="unyank" />
      <Button type="submit" variant={variant} disabled={fetcher.state !== "idle"}>
        <Undo2 aria-hidden="true" />
        Unyank
      </Button>
    </fetcher.Form>
  );
}

/** `readOnly`: without the Unyank button (a viewer of an organization's project). */
export function YankedBanner({ release, readOnly = false }: { release: Release; readOnly?: boolean }) {
  return (
    <section
      aria-label="Yanked release"
      data-testid="yanked-banner"
      className="mb-6 flex flex-col gap-3 rounded-xl border border-amber-300 bg-amber-50 px-4 py-4 text-amber-900 sm:flex-row sm:items-start sm:justify-between dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-200"
    >
      <div className="flex gap-3">
        <TriangleAlert className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
        <div className="min-w-0">
          <p className="font-semibold">
            This release was yanked
            {release.yankedAt ? (
              <>
                {" "}
                on <FormattedDate iso={release.yankedAt} withTime />
              </>
            ) : null}
          </p>
          {release.yankedReason ? (
            <p className="mt-1 break-words text-sm">
              <span className="font-medium">Reason:</span> {release.yankedReason}
            </p>
          ) : null}
          <p className="mt-1 text-sm opacity-80">
            Its files still download by exact version, but <span className="font-mono">latest</span> skips it.
          </p>
        </div>
      </div>
      <div className="shrink-0">{readOnly ? null : <UnyankButton />}</div>
    </section>
  );
}
