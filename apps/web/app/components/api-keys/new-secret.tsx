// A freshly created key or token, shown once: the secret with a copy button and a reminder that
// Packyard cannot show it again.
import { KeyRound } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "../../lib/utils.ts";
import { CopyButton } from "../ui/copy-button.tsx";

export function NewSecret({
  title,
  secret,
  children,
  actions,
  className,
  note = "Copy it now and keep it somewhere safe: it is shown only once. Anyone with it can act with its permissions.",
}: {
  title: string;
  secret: string;
  /** What the secret is for, beside "shown only once". */
  note?: string;
  children?: ReactNode;
  actions?: ReactNode;
  className?: string;
}) {
  return (
    <section
      aria-labelledby="new-secret-heading"
      className={cn(
        "grid gap-4 rounded-xl border border-primary/40 bg-accent/40 p-5 shadow-sm sm:p-6",
        className,
      )}
      data-testid="new-secret"
    >
      <div className="flex items-start gap-3">
        <div className="rounded-full bg-accent p-2 text-primary">
          <KeyRound className="size-5" aria-hidden="true" />
        </div>
        <div className="grid gap-1">
          <h2 id="new-secret-heading" className="font-semibold tracking-tight">
            {title}
          </h2>
          <p className="text-sm text-muted-foreground">{note}</p>
        </div>
      </div>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          className="min-w-0 flex-1 select-all break-all rounded-md border border-border bg-background px-3 py-2 font-mono text-sm"
          data-testid="secret-value"
        >
          {secret}
        </code>
        <CopyButton value={secret} aria-label="Copy to clipboard" variant="default" size="default">
          Copy
        </CopyButton>
      </div>
      {children}
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </section>
  );
}
