// The not-found and generic error views (spec §2) in the public site's frame, shared by the root
// error boundary and the catch-all route.
import { ArrowLeft, CircleAlert, Compass, Lock } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { SiteShell } from "./marketing/site-shell.tsx";
import { Button } from "./ui/button.tsx";

function StatusPage({
  signedIn,
  icon,
  eyebrow,
  title,
  children,
}: {
  signedIn: boolean;
  icon: ReactNode;
  eyebrow?: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <SiteShell signedIn={signedIn}>
      <main className="mx-auto flex min-h-[60vh] max-w-xl flex-col justify-center px-4 py-16 sm:px-6">
        <div className="flex size-12 items-center justify-center rounded-xl bg-accent text-primary">
          {icon}
        </div>
        {eyebrow ? <p className="mt-6 text-sm font-semibold text-primary">{eyebrow}</p> : null}
        <h1 className={`${eyebrow ? "mt-2" : "mt-6"} text-3xl font-bold tracking-tight`}>{title}</h1>
        {children}
      </main>
    </SiteShell>
  );
}

function HomeButton({ signedIn }: { signedIn: boolean }) {
  return (
    <Button asChild>
      <Link to={signedIn ? "/dashboard" : "/"}>{signedIn ? "Go to Dashboard" : "Go to Home page"}</Link>
    </Button>
  );
}

export function NotFoundView({ signedIn }: { signedIn: boolean }) {
  return (
    <StatusPage
      signedIn={signedIn}
      icon={<Compass className="size-6" aria-hidden="true" />}
      eyebrow="404"
      title="Page Not Found"
    >
      <p className="mt-3 text-muted-foreground">We couldn't find the page you were looking for. You could:</p>
      <ul className="mt-4 list-disc space-y-1 pl-5 text-muted-foreground">
        <li>Check the URL for typos</li>
        <li>Go back to the previous page</li>
        <li>Return to the dashboard</li>
      </ul>
      <div className="mt-8 flex flex-wrap gap-3">
        <HomeButton signedIn={signedIn} />
        <Button variant="outline" type="button" onClick={() => window.history.back()}>
          <ArrowLeft aria-hidden="true" />
          Go back
        </Button>
      </div>
    </StatusPage>
  );
}

/**
 * A page the signed-in user's role does not open (403), e.g. an organization project's audit log
 * for a viewer. `reason`: the server's message, naming the role that may.
 */
export function ForbiddenView({ signedIn, reason }: { signedIn: boolean; reason?: string }) {
  return (
    <StatusPage
      signedIn={signedIn}
      icon={<Lock className="size-6" aria-hidden="true" />}
      eyebrow="403"
      title="Not for your role"
    >
      <p className="mt-3 text-muted-foreground" data-testid="forbidden-reason">
        {reason || "Your role does not open this page."}
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        <HomeButton signedIn={signedIn} />
        <Button variant="outline" type="button" onClick={() => window.history.back()}>
          <ArrowLeft aria-hidden="true" />
          Go back
        </Button>
      </div>
    </StatusPage>
  );
}

export function ErrorView({ signedIn }: { signedIn: boolean }) {
  return (
    <StatusPage
      signedIn={signedIn}
      icon={<CircleAlert className="size-6" aria-hidden="true" />}
      title="Oops!"
    >
      <p className="mt-3 text-muted-foreground">Something went wrong. Please try again later.</p>
      <div className="mt-8">
        <HomeButton signedIn={signedIn} />
      </div>
    </StatusPage>
  );
}
