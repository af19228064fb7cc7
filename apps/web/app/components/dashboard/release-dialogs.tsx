// The New release dialog (on the releases list) and the Yank dialog (on a release): Conform forms
// (lib/forms.ts) posted through fetchers.
import { useForm } from "@conform-to/react";
import { Ban, Plus } from "lucide-react";
import { type ComponentProps, type ReactNode, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { type FormReply, parseForm } from "../../lib/forms.ts";
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
import { newReleaseForm, yankForm } from "./forms.ts";
import { NotesEditor } from "./notes-editor.tsx";
import { FormAlert, focusFirstField, SubmitButton } from "./project-dialogs.tsx";
import { useFetcherOutcome } from "./use-fetcher-outcome.ts";

export function NewReleaseDialog({
  action,
  open,
  onOpenChange,
  trigger,
}: {
  /** The releases page it posts to (lib/project-path.ts). */
  action: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  trigger?: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {trigger ? <DialogTrigger asChild>{trigger}</DialogTrigger> : null}
      <DialogContent className="sm:max-w-2xl" onOpenAutoFocus={focusFirstField}>
        <NewReleaseForm action={action} />
      </DialogContent>
    </Dialog>
  );
}

/**
 * The dialog's trigger: it passes on what DialogTrigger's `asChild` gives it (the click that
 * opens the dialog, its ARIA state, the ref) to the button.
 */
export function NewReleaseButton(props: ComponentProps<typeof Button>) {
  return (
    <Button {...props}>
      <Plus aria-hidden="true" />
      New release
    </Button>
  );
}

function NewReleaseForm({ action }: { action: string }) {
  const fetcher = useFetcher<FormReply>();
  const [form, fields] = useForm({
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, newReleaseForm),
  });
  const [notes, setNotes] = useState("");
  return (
    <fetcher.Form
      method="post"
      action={action}
      id={form.id}
      onSubmit={form.onSubmit}
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
      <FormAlert errors={form.errors} code={fetcher.data?.code} />
      {/* items-start: the Title field keeps its input level with Version's, not pushed down by the hint. */}
      <div className="grid grid-cols-1 items-start gap-4 sm:grid-cols-[minmax(0,14rem)_1fr]">
        <FormField
          label="Version"
          name={fields.version.name}
          placeholder="1.4.0"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={128}
          className="font-mono"
          error={fields.version.errors?.[0]}
          hint="Letters, digits and . + ~ _ -"
          data-autofocus
        />
        <FormField
          label="Title"
          name={fields.title.name}
          placeholder="Optional, e.g. “Spring update”"
          maxLength={200}
          error={fields.title.errors?.[0]}
        />
      </div>
      <NotesEditor
        name={fields.notes.name}
        value={notes}
        onChange={setNotes}
        rows={8}
        error={fields.notes.errors?.[0]}
      />
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
  const fetcher = useFetcher<FormReply>({ key: YANK_FETCHER });
  const [reason, setReason] = useState("");
  // The keyed fetcher keeps the answer of an earlier opening: show only this opening's.
  const submitted = useRef(false);
  const reply = submitted.current ? fetcher.data : undefined;
  const [form, fields] = useForm({
    lastResult: reply?.result,
    onValidate: ({ formData }) => parseForm(formData, yankForm),
    onSubmit: () => {
      submitted.current = true;
    },
  });
  useFetcherOutcome(fetcher, { onSuccess: onDone });
  return (
    <fetcher.Form
      method="post"
      id={form.id}
      onSubmit={form.onSubmit}
      className="grid grid-cols-1 gap-5"
      noValidate
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
      <FormAlert errors={form.errors} code={reply?.code} />
      <TextareaField
        label="Reason"
        name={fields.reason.name}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        rows={3}
        maxLength={500}
        required
        placeholder="e.g. Packages were built against the wrong OpenSSL; use 1.4.1."
        error={fields.reason.errors?.[0]}
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
