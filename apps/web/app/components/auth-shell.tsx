// The centred card layout shared by the sign-in, password and onboarding pages.
import type { ReactNode } from "react";
import { Link } from "react-router";
import { Logo } from "./logo.tsx";
import { Card, CardContent, CardDescription, CardHeader } from "./ui/card.tsx";

export function AuthShell({
  title,
  description,
  children,
  footer,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center bg-muted/40 px-4 py-12">
      <Link to="/" className="mb-8" aria-label="Packyard home">
        <Logo />
      </Link>
      <Card className="w-full max-w-md">
        <CardHeader>
          <h1 className="text-lg font-semibold tracking-tight">{title}</h1>
          {description ? <CardDescription>{description}</CardDescription> : null}
        </CardHeader>
        <CardContent>{children}</CardContent>
      </Card>
      {footer ? <div className="mt-6 text-sm text-muted-foreground">{footer}</div> : null}
    </main>
  );
}
