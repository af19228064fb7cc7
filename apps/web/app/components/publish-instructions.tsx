// How to publish from a terminal or CI, with this server's URL and the project's owner/slug:
// the CLI (install, log in, push) and a bare curl upload with an API key. The command texts
// come from lib/publish-commands.ts, shared by every page that shows them.
import type { ReactNode } from "react";
import { Link } from "react-router";
import {
  type CiSystem,
  cliCommands,
  type PublishTarget,
  TOKEN_VARIABLE,
  tokenCommands,
} from "../lib/publish-commands.ts";
import { cn } from "../lib/utils.ts";
import { CommandBlock } from "./marketing/command-block.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "./ui/card.tsx";
import { CopyButton } from "./ui/copy-button.tsx";

/** The two ways to publish, side by side on a wide screen. */
export function PublishCommands({
  target,
  version,
  className,
}: {
  target: PublishTarget;
  version?: string;
  className?: string;
}) {
  return (
    <div className={cn("grid min-w-0 gap-6 lg:grid-cols-2", className)}>
      <div className="grid min-w-0 content-start gap-2">
        <h3 className="text-sm font-medium">With the packyard CLI</h3>
        <p className="text-sm text-muted-foreground">
          Install it once, log in from the browser, then push: it creates the release and uploads every file.
        </p>
        <CommandBlock title="Terminal" lines={cliCommands(target, version).map((command) => ({ command }))} />
      </div>
      <div className="grid min-w-0 content-start gap-2">
        <h3 className="text-sm font-medium">With curl and an API key</h3>
        <p className="text-sm text-muted-foreground">
          Any HTTP client will do: each file is one <code className="font-mono">PUT</code>, and the release is
          created with the first. Create a key with publish access on{" "}
          <Link to="/api-keys" className="font-medium text-primary hover:underline">
            API keys
          </Link>
          .
        </p>
        <CommandBlock
          title="Terminal"
          lines={tokenCommands(target, version).map((command) => ({ command }))}
        />
      </div>
    </div>
  );
}

/** A card with both ways to publish to one project (or one release of it). */
export function PublishInstructions({
  target,
  version,
  title,
  description,
  action,
  testId = "publish-instructions",
}: {
  target: PublishTarget;
  version?: string;
  title: string;
  description: ReactNode;
  /** A button beside the title (New release). */
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <Card className="min-w-0" data-testid={testId}>
      <CardHeader className="flex-col gap-4 px-4 sm:flex-row sm:items-start sm:justify-between sm:px-6">
        <div className="grid gap-1.5">
          <CardTitle>{title}</CardTitle>
          <CardDescription>{description}</CardDescription>
        </div>
        {action ? <div className="shrink-0">{action}</div> : null}
      </CardHeader>
      <CardContent className="px-4 sm:px-6">
        <PublishCommands target={target} version={version} />
      </CardContent>
    </Card>
  );
}

/** A configuration file to paste whole (a CI workflow), with its path and one copy button. */
export function ConfigFile({ path, text, system }: { path: string; text: string; system?: CiSystem }) {
  return (
    <div
      className="min-w-0 overflow-hidden rounded-xl border border-border bg-[#0f172a] text-slate-100"
      data-testid={system ? `ci-config-${system}` : undefined}
    >
      <div className="flex items-center justify-between gap-2 border-b border-white/10 py-1.5 pr-2 pl-4 text-xs text-slate-300">
        <span className="min-w-0 truncate font-mono">{path}</span>
        <CopyButton
          value={text}
          label={`Copy ${path}`}
          className="shrink-0 text-slate-400 hover:bg-white/10 hover:text-white"
        />
      </div>
      <pre className="max-h-96 overflow-auto px-4 py-3 font-mono text-xs leading-5">
        <code>{text}</code>
      </pre>
    </div>
  );
}

/** The CI variables a workflow reads: the server's URL, and the key as a secret. */
export function CiVariables({ baseUrl }: { baseUrl: string }) {
  return (
    <dl className="grid gap-2 text-sm" data-testid="ci-variables">
      <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
        <dt className="font-mono font-medium">PACKYARD_SERVER</dt>
        <dd className="flex min-w-0 items-center gap-1">
          <code className="min-w-0 break-all rounded bg-muted px-1.5 py-0.5 font-mono text-xs">
            {baseUrl}
          </code>
          <CopyButton value={baseUrl} label="Copy the server URL" />
        </dd>
      </div>
      <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
        <dt className="font-mono font-medium">{TOKEN_VARIABLE}</dt>
        <dd className="text-muted-foreground">
          not needed: the job's ID token is traded for a publish token (trusted publishing)
        </dd>
      </div>
    </dl>
  );
}
