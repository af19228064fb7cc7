// Backup codes, shown once: each signs in a single time when the authenticator app is not at
// hand. Copy them or download them as a text file.
import { Download, LifeBuoy } from "lucide-react";
import type { ReactNode } from "react";
import { Button } from "../ui/button.tsx";
import { CopyButton } from "../ui/copy-button.tsx";

function download(codes: string[], email: string) {
  const text = [
    `Packyard backup codes for ${email}`,
    "Each code signs you in once, in place of a code from your authenticator app.",
    "",
    ...codes,
    "",
  ].join("\n");
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = "packyard-backup-codes.txt";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function BackupCodes({
  title,
  codes,
  email,
  actions,
}: {
  title: string;
  codes: string[];
  email: string;
  actions?: ReactNode;
}) {
  return (
    <section
      aria-labelledby="backup-codes-heading"
      className="grid gap-4 rounded-xl border border-primary/40 bg-accent/40 p-5"
      data-testid="backup-codes"
    >
      <div className="flex items-start gap-3">
        <div className="rounded-full bg-accent p-2 text-primary">
          <LifeBuoy className="size-5" aria-hidden="true" />
        </div>
        <div className="grid gap-1">
          <h3 id="backup-codes-heading" className="font-semibold tracking-tight">
            {title}
          </h3>
          <p className="text-sm text-muted-foreground">
            Keep these somewhere safe, apart from your authenticator. Each code signs you in once if you lose
            your device. They are shown only now.
          </p>
        </div>
      </div>
      <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-5" aria-label="Backup codes">
        {codes.map((code) => (
          <li key={code} className="rounded-md border border-border bg-background px-2 py-1.5 text-center">
            {code}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <CopyButton
          value={codes.join("\n")}
          variant="outline"
          size="default"
          successMessage="Backup codes copied"
        >
          Copy codes
        </CopyButton>
        <Button type="button" variant="outline" onClick={() => download(codes, email)}>
          <Download aria-hidden="true" />
          Download
        </Button>
        {actions}
      </div>
    </section>
  );
}
