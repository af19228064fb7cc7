// "Install" card on project and release pages, public and signed-in: the one-line setup, the
// install line for the release's packages, the deb822 source, and the signing key fingerprints,
// each copyable.
import { KeyRound, Terminal } from "lucide-react";
import type { RepositorySetup } from "../lib/repository-setup.server.ts";
import { Card } from "./ui/card.tsx";
import { CopyButton } from "./ui/copy-button.tsx";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "./ui/tabs.tsx";

/** A command listing with its copy button beside it (the verify block of a release uses it too). */
export function Snippet({ value, label }: { value: string; label: string }) {
  return (
    // The copy button sits beside the listing, not over it, so a long line scrolls under nothing.
    <div className="flex min-w-0 items-start rounded-md border border-border bg-muted">
      <pre
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling listing must be reachable by keyboard
        tabIndex={0}
        className="min-w-0 flex-1 overflow-x-auto rounded-md p-3 text-xs leading-relaxed"
      >
        <code>{value}</code>
      </pre>
      <CopyButton value={value} label={label} className="m-1.5 shrink-0" />
    </div>
  );
}

const groupFingerprint = (fpr: string) => fpr.replace(/(.{4})/g, "$1 ").trim();

/**
 * The package names to put in the install lines, from a release's files: a .deb's name before
 * its first `_` (name_version_arch.deb), an .rpm's without -version-release.arch.rpm.
 */
export function installablePackages(files: readonly { filename: string; kind: string }[]): {
  debPackage?: string;
  rpmPackage?: string;
} {
  return {
    debPackage: files.find((f) => f.kind === "deb")?.filename.split("_")[0],
    rpmPackage: files.find((f) => f.kind === "rpm")?.filename.replace(/-[^-]+-[^-]+\.[^.]+\.rpm$/, ""),
  };
}

/** `files`: the shown release's files (the latest on a project's page), for the install lines. */
export function RepositorySetupCard({
  setup,
  files = [],
}: {
  setup: RepositorySetup;
  files?: readonly { filename: string; kind: string }[];
}) {
  const { debPackage, rpmPackage } = installablePackages(files);
  return (
    <Card className="min-w-0 p-5" data-testid="repository-setup">
      <h2 className="flex items-center gap-2 font-semibold">
        <Terminal className="size-4" aria-hidden="true" /> Install with apt or dnf
      </h2>
      {!setup.hasDebs && !setup.hasRpms ? (
        <p className="mt-1 text-sm text-muted-foreground">
          Upload a .deb or an .rpm to any release and it is served from these repositories at once.
        </p>
      ) : null}
      <Tabs defaultValue={setup.hasRpms && !setup.hasDebs ? "dnf" : "script"} className="mt-3">
        <TabsList>
          <TabsTrigger value="script">apt</TabsTrigger>
          <TabsTrigger value="sources">deb822 source</TabsTrigger>
          <TabsTrigger value="dnf">dnf</TabsTrigger>
        </TabsList>
        <TabsContent value="script" className="mt-3 grid min-w-0 grid-cols-1 gap-2">
          <Snippet value={setup.setupCommand} label="Copy the setup command" />
          {debPackage ? (
            <Snippet value={`sudo apt-get install ${debPackage}`} label="Copy the install command" />
          ) : null}
          {setup.private ? (
            <p className="text-xs text-muted-foreground">
              This repository is private: set <code>TOKEN</code> to a read API key for this project.
            </p>
          ) : null}
        </TabsContent>
        <TabsContent value="sources" className="mt-3 grid min-w-0 grid-cols-1 gap-2">
          <p className="text-xs text-muted-foreground">
            Save as{" "}
            <code>
              /etc/apt/sources.list.d/packyard-{setup.owner}-{setup.slug}.sources
            </code>
            , with the keyring from{" "}
            <a
              className="text-primary hover:underline"
              href={setup.keyUrl.replace(/gpg\.key$/, "keyring.gpg")}
            >
              keyring.gpg
            </a>{" "}
            in <code>/etc/apt/keyrings/</code>.
          </p>
          <Snippet value={setup.debSources} label="Copy the source" />
        </TabsContent>
        <TabsContent value="dnf" className="mt-3 grid min-w-0 grid-cols-1 gap-2">
          <Snippet value={setup.rpmSetupCommand} label="Copy the dnf setup command" />
          {rpmPackage ? (
            <Snippet value={`sudo dnf install ${rpmPackage}`} label="Copy the dnf install command" />
          ) : null}
          <p className="text-xs text-muted-foreground">
            Or save{" "}
            <a className="text-primary hover:underline" href={setup.repoFileUrl}>
              the .repo file
            </a>{" "}
            in <code>/etc/yum.repos.d/</code>; packages are signed with the key below.
          </p>
        </TabsContent>
      </Tabs>
      <div className="mt-4 border-t border-border pt-3">
        <p className="flex items-center gap-2 text-sm font-medium">
          <KeyRound className="size-4" aria-hidden="true" /> Signing key{setup.keys.length > 1 ? "s" : ""}
        </p>
        <ul className="mt-1 grid gap-1">
          {setup.keys.map((key) => (
            <li
              key={key.fingerprint}
              className="flex flex-wrap items-center gap-x-2 text-xs text-muted-foreground"
            >
              <code className="break-all font-mono text-foreground" data-testid="key-fingerprint">
                {groupFingerprint(key.fingerprint)}
              </code>
              <span>{key.algorithm === "ed25519" ? "Ed25519" : "RSA-3072"}</span>
              {key.retireAt ? <span>· retires {new Date(key.retireAt).toLocaleDateString()}</span> : null}
              <CopyButton value={key.fingerprint} label="Copy the fingerprint" />
            </li>
          ))}
        </ul>
        <a className="mt-1 inline-block text-xs text-primary hover:underline" href={setup.keyUrl}>
          Public key (gpg.key)
        </a>
      </div>
    </Card>
  );
}
