// The New project, Edit project and Delete project dialogs. Each posts to its page's action
// through a fetcher; the form is mounted only while the dialog is open, so every opening starts
// clean.
import type { Project } from "@packyard/contract";
import { Loader2, Trash2 } from "lucide-react";
import { type ReactNode, useState } from "react";
import { Link, useFetcher } from "react-router";
import { toast } from "sonner";
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
import { type ActionResult, failureOf, useFetcherOutcome } from "./action-result.ts";
import { ProjectFields } from "./project-fields.tsx";

/** Focus the first field marked data-autofocus rather than the close button. */
export function focusFirstField(event: Event) {
  const content = event.currentTarget as HTMLElement | null;
  const field = content?.querySelector<HTMLElement>("[data-autofocus]");
  if (field) {
    event.preventDefault();
    field.focus();
  }
}

export function FormAlert({ failure }: { failure: ReturnType<typeof failureOf> }) {
  if (!failure?.formError) return null;
  return (
    <Alert variant="error" data-testid="form-error">
      {failure.formError}
      {failure.code === "PLAN_LIMIT" ? (
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

export function NewProjectDialog({ trigger }: { trigger: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>{trigger}</DialogTrigger>
      <DialogContent className="sm:max-w-xl" onOpenAutoFocus={focusFirstField}>
        <NewProjectForm />
      </DialogContent>
    </Dialog>
  );
}

function NewProjectForm() {
  const fetcher = useFetcher<ActionResult>();
  const failure = failureOf(fetcher.data);
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" action="/projects" className="grid grid-cols-1 gap-5" noValidate>
      <DialogHeader>
        <DialogTitle>New project</DialogTitle>
        <DialogDescription>
          A project holds your releases and gets its own signed APT and YUM repository.
        </DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="create" />
      <FormAlert failure={failure} />
      <ProjectFields withSlug errors={failure?.errors ?? {}} />
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
      <DialogContent className="sm:max-w-xl" onOpenAutoFocus={focusFirstField}>
        <EditProjectForm project={project} onDone={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

function EditProjectForm({ project, onDone }: { project: Project; onDone: () => void }) {
  const fetcher = useFetcher<ActionResult>();
  const failure = failureOf(fetcher.data);
  useFetcherOutcome(fetcher, {
    onSuccess: (result) => {
      toast.success(result.message);
      onDone();
    },
  });
  return (
    <fetcher.Form method="post" className="grid grid-cols-1 gap-5" noValidate>
      <DialogHeader>
        <DialogTitle>Edit project</DialogTitle>
        <DialogDescription>
          Change how <span className="font-mono text-foreground">{project.slug}</span> is described and who
          can see it. The slug stays the same.
        </DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="update" />
      <FormAlert failure={failure} />
      <ProjectFields project={project} withSlug={false} errors={failure?.errors ?? {}} />
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
  const fetcher = useFetcher<ActionResult>();
  const failure = failureOf(fetcher.data);
  const [typed, setTyped] = useState("");
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" className="grid grid-cols-1 gap-5">
      <div className="grid grid-cols-1 gap-1.5">
        <AlertDialogTitle>Delete {project.name}?</AlertDialogTitle>
        <AlertDialogDescription>
          This permanently deletes the project, its {project.releaseCount}{" "}
          {project.releaseCount === 1 ? "release" : "releases"} and every uploaded file. Download URLs and
          repositories stop working. This cannot be undone.
        </AlertDialogDescription>
      </div>
      <input type="hidden" name="intent" value="delete" />
      <FormAlert failure={failure} />
      <FormField
        label={`Type ${project.slug} to confirm`}
        name="confirm"
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        className="font-mono"
        error={failure?.errors.confirm}
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
