// The New release dialog (on the releases list) and the Yank dialog (on a release).
import { Ban, Plus } from "lucide-react";
import { type ReactNode, useRef, useState } from "react";
import { useFetcher } from "react-router";
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
import { TextareaField } from "../ui/textarea.tsx";
import { type ActionResult, failureOf, useFetcherOutcome } from "./action-result.ts";
import { NotesEditor } from "./notes-editor.tsx";
import { FormAlert, focusFirstField, SubmitButton } from "./project-dialogs.tsx";

export function NewReleaseDialog({
  projectSlug,
  open,
  onOpenChange,
  trigger,
}: {
  projectSlug: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  trigger?: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {trigger ? <DialogTrigger asChild>{trigger}</DialogTrigger> : null}
      <DialogContent className="sm:max-w-2xl" onOpenAutoFocus={focusFirstField}>
        <NewReleaseForm projectSlug={projectSlug} />
      </DialogContent>
    </Dialog>
  );
}

export function NewReleaseButton() {
  return (
    <Button>
      <Plus aria-hidden="true" />
      New release
    </Button>
  );
}

function NewReleaseForm({ projectSlug }: { projectSlug: string }) {
  const fetcher = useFetcher<ActionResult>();
  const failure = failureOf(fetcher.data);
  const [notes, setNotes] = useState("");
  return (
    <fetcher.Form
      method="post"
      action={`/projects/${projectSlug}/releases`}
      className="grid grid-cols-1 gap-5"
      noValidate
    >
      <DialogHeader>
        <DialogTitle>New release</DialogTitle>
        <DialogDescription>
          Name the version, then upload its files on the release page. Versions are unique in a project.
        </DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="create" />
      <FormAlert failure={failure} />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-[minmax(0,14rem)_1fr]">
        <FormField
          label="Version"
          name="version"
          placeholder="1.4.0"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={128}
          className="font-mono"
          error={failure?.errors.version}
          hint="Letters, digits and . + ~ _ -"
          data-autofocus
        />
        <FormField
          label="Title"
          name="title"
          placeholder="Optional, e.g. “Spring update”"
          maxLength={200}
          error={failure?.errors.title}
        />
      </div>
      <NotesEditor value={notes} onChange={setNotes} rows={8} error={failure?.errors.notes} />
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </DialogClose>
        <SubmitButton busy={fetcher.state !== "idle"}>Create release</SubmitButton>
      </DialogFooter>
    </fetcher.Form>
  );
}

export function YankDialog({ version }: { version: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" className="text-amber-700 hover:text-amber-800 dark:text-amber-300">
          <Ban aria-hidden="true" />
          Yank release
        </Button>
      </DialogTrigger>
      <DialogContent onOpenAutoFocus={focusFirstField}>
        <YankForm version={version} onDone={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

export const YANK_FETCHER = "yank-release";

function YankForm({ version, onDone }: { version: string; onDone: () => void }) {
  // The page toasts the outcome (useFetcherToasts): once yanked, this dialog is replaced.
  const fetcher = useFetcher<ActionResult>({ key: YANK_FETCHER });
  const [reason, setReason] = useState("");
  const submitted = useRef(false);
  const failure = submitted.current ? failureOf(fetcher.data) : undefined;
  useFetcherOutcome(fetcher, { onSuccess: onDone });
  return (
    <fetcher.Form
      method="post"
      className="grid grid-cols-1 gap-5"
      noValidate
      onSubmit={() => {
        submitted.current = true;
      }}
    >
      <DialogHeader>
        <DialogTitle>Yank {version}?</DialogTitle>
        <DialogDescription>
          A yanked release stays downloadable by its exact version, but{" "}
          <span className="font-mono">latest</span> skips it and its page warns visitors with your reason. You
          can unyank it later.
        </DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="yank" />
      <FormAlert failure={failure} />
      <TextareaField
        label="Reason"
        name="reason"
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        rows={3}
        maxLength={500}
        required
        placeholder="e.g. Packages were built against the wrong OpenSSL; use 1.4.1."
        error={failure?.errors.reason}
        hint="Required. Shown on the release page."
        data-autofocus
      />
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </DialogClose>
        <SubmitButton busy={fetcher.state !== "idle"} disabled={reason.trim().length === 0}>
          Yank release
        </SubmitButton>
      </DialogFooter>
    </fetcher.Form>
  );
}
