// The New project, Edit project and Delete project dialogs. Each is a Conform form (lib/forms.ts)
// posted to its page's action through a fetcher; the form is mounted only while the dialog is
// open, so every opening starts clean.
import { useForm } from "@conform-to/react";
import type { ApiErrorCode, Project } from "@packyard/contract";
import { Loader2, Trash2 } from "lucide-react";
import { type ReactNode, useState } from "react";
import { Link, useFetcher } from "react-router";
import { toast } from "sonner";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { Alert } from "../ui/alert.tsx";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "../ui/alert-dialog.tsx";
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
import { deleteProjectForm, editProjectForm, newProjectForm } from "./forms.ts";
import { ProjectFields } from "./project-fields.tsx";
import { useFetcherOutcome } from "./use-fetcher-outcome.ts";

/** Focus the first field marked data-autofocus rather than the close button. */
export function focusFirstField(event: Event) {
  const content = event.currentTarget as HTMLElement | null;
  const field = content?.querySelector<HTMLElement>("[data-autofocus]");
  if (field) {
    event.preventDefault();
    field.focus();
  }
}

/** The form's own error (Conform's `form.errors`), with a way out when it is the plan's limit. */
export function FormAlert({ errors, code }: { errors: string[] | undefined; code?: ApiErrorCode }) {
  const message = errors?.[0];
  if (!message) return null;
  return (
    <Alert variant="error" data-testid="form-error">
      {message}
      {code === "PLAN_LIMIT" ? (
        <>
          {" "}
          <Link to="/pricing" className="font-medium underline underline-offset-2">
            Compare plans
          </Link>
        </>
      ) : null}
    </Alert>
  );
}

export function SubmitButton({
  busy,
  children,
  variant,
  disabled,
}: {
  busy: boolean;
  children: ReactNode;
  variant?: "default" | "destructive";
  disabled?: boolean;
}) {
  return (
    <Button type="submit" variant={variant} disabled={busy || disabled} aria-busy={busy || undefined}>
      {busy ? <Loader2 className="animate-spin" aria-hidden="true" /> : null}
      {children}
    </Button>
  );
}

// The project dialogs are taller than a laptop's window: their fields scroll between the header
// and the footer, so Cancel and the submit button are always in view.
const formDialogClass = "flex flex-col overflow-hidden sm:max-w-xl";
const formClass = "flex min-h-0 flex-col gap-5";
// Padding inside the scrolled box keeps the fields' focus rings from being clipped.
const bodyClass = "-mx-6 grid min-h-0 grid-cols-1 gap-5 overflow-y-auto px-6 py-1";

/** `owner`: an organization's slug to create it under (its page's dialog); else the user's own. */
export function NewProjectDialog({ trigger, owner }: { trigger: ReactNode; owner?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>{trigger}</DialogTrigger>
      <DialogContent className={formDialogClass} onOpenAutoFocus={focusFirstField}>
        <NewProjectForm owner={owner} />
      </DialogContent>
    </Dialog>
  );
}

function NewProjectForm({ owner }: { owner?: string }) {
  const fetcher = useFetcher<FormReply>();
  const [form] = useForm({
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, newProjectForm),
  });
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form
      method="post"
      action="/projects"
      id={form.id}
      onSubmit={form.onSubmit}
      className={formClass}
      noValidate
    >
      <DialogHeader>
        <DialogTitle>New project</DialogTitle>
        <DialogDescription>
          {owner ? (
            <>
              A project of <span className="font-mono text-foreground">{owner}</span> holds its releases and
              gets its own signed APT and YUM repository.
            </>
          ) : (
            "A project holds your releases and gets its own signed APT and YUM repository."
          )}
        </DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="create" />
      {owner ? <input type="hidden" name="owner" value={owner} /> : null}
      <div className={bodyClass}>
        <FormAlert errors={form.errors} code={fetcher.data?.code} />
        <ProjectFields withSlug errors={form.allErrors} />
      </div>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </DialogClose>
        <SubmitButton busy={busy}>Create project</SubmitButton>
      </DialogFooter>
    </fetcher.Form>
  );
}

export function EditProjectDialog({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline">Edit project</Button>
      </DialogTrigger>
      <DialogContent className={formDialogClass} onOpenAutoFocus={focusFirstField}>
        <EditProjectForm project={project} onDone={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

function EditProjectForm({ project, onDone }: { project: Project; onDone: () => void }) {
  const fetcher = useFetcher<FormReply>();
  const [form] = useForm({
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, editProjectForm),
  });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
      onDone();
    },
  });
  return (
    <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className={formClass} noValidate>
      <DialogHeader>
        <DialogTitle>Edit project</DialogTitle>
        <DialogDescription>
          Change how <span className="font-mono text-foreground">{project.slug}</span> is described and who
          can see it. The slug stays the same.
        </DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="update" />
      <div className={bodyClass}>
        <FormAlert errors={form.errors} code={fetcher.data?.code} />
        <ProjectFields project={project} withSlug={false} errors={form.allErrors} />
      </div>
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </DialogClose>
        <SubmitButton busy={fetcher.state !== "idle"}>Save changes</SubmitButton>
      </DialogFooter>
    </fetcher.Form>
  );
}

export function DeleteProjectDialog({ project }: { project: Project }) {
  return (
    <AlertDialog>
      <AlertDialogTrigger asChild>
        <Button variant="outline" className="text-destructive hover:text-destructive">
          <Trash2 aria-hidden="true" />
          Delete project
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent onOpenAutoFocus={focusFirstField}>
        <DeleteProjectForm project={project} />
      </AlertDialogContent>
    </AlertDialog>
  );
}

function DeleteProjectForm({ project }: { project: Project }) {
  const fetcher = useFetcher<FormReply>();
  const [form, fields] = useForm({
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, deleteProjectForm(project.slug)),
  });
  const [typed, setTyped] = useState("");
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid grid-cols-1 gap-5">
      <div className="grid grid-cols-1 gap-1.5">
        <AlertDialogTitle>Delete {project.name}?</AlertDialogTitle>
        <AlertDialogDescription>
          This permanently deletes the project, its {project.releaseCount}{" "}
          {project.releaseCount === 1 ? "release" : "releases"} and every uploaded file. Download URLs and
          repositories stop working. This cannot be undone.
        </AlertDialogDescription>
      </div>
      <input type="hidden" name="intent" value="delete" />
      <FormAlert errors={form.errors} code={fetcher.data?.code} />
      <FormField
        label={`Type ${project.slug} to confirm`}
        name={fields.confirm.name}
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        className="font-mono"
        error={fields.confirm.errors?.[0]}
        data-autofocus
      />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <AlertDialogCancel asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </AlertDialogCancel>
        <SubmitButton busy={busy} variant="destructive" disabled={typed !== project.slug}>
          Delete project
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
