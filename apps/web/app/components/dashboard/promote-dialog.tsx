// The Promote dialog on a release page (decision 035): to another APT suite or component or YUM
// group of this project (its packages move there), or into another of your projects (copied,
// .rpm files signed with that project's key). Posted through a fetcher to the page's action.
import { useForm } from "@conform-to/react";
import { ArrowUpRight } from "lucide-react";
import { useRef, useState } from "react";
import { useFetcher } from "react-router";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { promoteForm } from "../../lib/promote-form.ts";
import type { PromotionChoices } from "../../lib/promotion.server.ts";
import { Button } from "../ui/button.tsx";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "../ui/dialog.tsx";
import { FormField } from "../ui/form-field.tsx";
import { Label } from "../ui/label.tsx";
import { FormAlert, focusFirstField, SubmitButton } from "./project-dialogs.tsx";
import { useFetcherOutcome } from "./use-fetcher-outcome.ts";

export const PROMOTE_FETCHER = "promote-release";

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring aria-invalid:border-destructive";

export function PromoteDialog({ version, choices }: { version: string; choices: PromotionChoices }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline">
          <ArrowUpRight aria-hidden="true" />
          Promote
        </Button>
      </DialogTrigger>
      <DialogContent className="sm:max-w-xl" onOpenAutoFocus={focusFirstField}>
        <PromoteForm version={version} choices={choices} onDone={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

function PromoteForm({
  version,
  choices,
  onDone,
}: {
  version: string;
  choices: PromotionChoices;
  onDone: () => void;
}) {
  // The page toasts the outcome (useFetcherToasts); this dialog closes on success.
  const fetcher = useFetcher<FormReply>({ key: PROMOTE_FETCHER });
  const submitted = useRef(false);
  const reply = submitted.current ? fetcher.data : undefined;
  const [form, fields] = useForm({
    lastResult: reply?.result,
    onValidate: ({ formData }) => parseForm(formData, promoteForm),
    onSubmit: () => {
      submitted.current = true;
    },
  });
  useFetcherOutcome(fetcher, { onSuccess: onDone });
  const projectError = fields.project.errors?.[0];
  const now = [
    ...choices.apt.map((t) => `APT ${t}`),
    ...choices.yum.map((g) => `YUM ${g === "" ? "root group" : `group ${g}`}`),
  ];
  return (
    <fetcher.Form
      method="post"
      id={form.id}
      onSubmit={form.onSubmit}
      className="grid grid-cols-1 gap-5"
      noValidate
    >
      <DialogHeader>
        <DialogTitle>Promote {version}</DialogTitle>
        <DialogDescription>
          No upload: the same files. In this project its packages move to the suite, component or group you
          name. To another project it is copied, and its .rpm files are signed with that project's key. The
          repositories republish at once.
        </DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="promote" />
      <FormAlert errors={form.errors} code={reply?.code} />
      {now.length > 0 ? (
        <p className="text-sm text-muted-foreground">
          Now in: <span className="font-mono text-foreground">{now.join(", ")}</span>
        </p>
      ) : null}
      <div className="grid gap-2">
        <Label htmlFor="promote-project">Project</Label>
        <select
          id="promote-project"
          name={fields.project.name}
          defaultValue=""
          className={selectClass}
          aria-invalid={projectError ? true : undefined}
          aria-describedby={projectError ? "promote-project-error" : undefined}
          data-autofocus
        >
          <option value="">This project</option>
          {choices.projects.map((p) => (
            <option key={p.slug} value={p.slug}>
              {p.name} ({p.slug})
            </option>
          ))}
        </select>
        {projectError ? (
          <p id="promote-project-error" className="text-sm text-destructive">
            {projectError}
          </p>
        ) : null}
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        <FormField
          label="APT distribution"
          name={fields.distribution.name}
          placeholder="e.g. stable"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={64}
          className="font-mono"
          error={fields.distribution.errors?.[0]}
        />
        <FormField
          label="APT component"
          name={fields.component.name}
          placeholder="e.g. main"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={64}
          className="font-mono"
          error={fields.component.errors?.[0]}
        />
        <FormField
          label="YUM group"
          name={fields.group.name}
          placeholder="e.g. el9"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={64}
          className="font-mono"
          error={fields.group.errors?.[0]}
        />
      </div>
      <p className="-mt-2 text-sm text-muted-foreground">
        Empty fields keep the files where they are listed now.
      </p>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </DialogClose>
        <SubmitButton busy={fetcher.state !== "idle"}>Promote</SubmitButton>
      </DialogFooter>
    </fetcher.Form>
  );
}
