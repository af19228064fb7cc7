// The not-found and generic error views (spec §2), shared by the root error boundary and the
// catch-all route.
import { Link } from "react-router";
import { Button } from "./ui/button.tsx";

export function NotFoundView({ signedIn }: { signedIn: boolean }) {
  return (
    <main className="mx-auto flex min-h-[70vh] max-w-xl flex-col justify-center px-6 py-16">
      <p className="text-sm font-semibold text-primary">404</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight">Page Not Found</h1>
      <p className="mt-3 text-muted-foreground">We couldn't find the page you were looking for. You could:</p>
      <ul className="mt-4 list-disc space-y-1 pl-5 text-muted-foreground">
        <li>Check the URL for typos</li>
        <li>Go back to the previous page</li>
        <li>Return to the dashboard</li>
      </ul>
      <div className="mt-8">
        <Button asChild>
          <Link to={signedIn ? "/dashboard" : "/"}>{signedIn ? "Go to Dashboard" : "Go to Home page"}</Link>
        </Button>
      </div>
    </main>
  );
}

export function ErrorView({ signedIn }: { signedIn: boolean }) {
  return (
    <main className="mx-auto flex min-h-[70vh] max-w-xl flex-col justify-center px-6 py-16">
      <h1 className="text-3xl font-bold tracking-tight">Oops!</h1>
      <p className="mt-3 text-muted-foreground">Something went wrong. Please try again later.</p>
      <div className="mt-8">
        <Button asChild>
          <Link to={signedIn ? "/dashboard" : "/"}>{signedIn ? "Go to Dashboard" : "Go to Home page"}</Link>
        </Button>
      </div>
    </main>
  );
}
