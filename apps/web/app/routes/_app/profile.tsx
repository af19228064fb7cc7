// /profile: who you are on Packyard.
import { useOutletContext } from "react-router";
import { PageHeader } from "../../components/page-header.tsx";
import { Card } from "../../components/ui/card.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { SessionUser } from "../../lib/session.server.ts";
import type { Route } from "./+types/profile";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Profile",
    noindex: true,
  });

export default function Profile() {
  const user = useOutletContext<SessionUser>();
  const rows = [
    ["Name", user.name],
    ["Username", `@${user.username}`],
    ["Email", user.email],
    ["Email verified", user.emailVerified ? "Yes" : "No"],
  ] as const;
  return (
    <>
      <PageHeader
        title="Profile"
        description="Your username is part of your public release pages and repository URLs."
      />
      <Card>
        <dl className="divide-y divide-border">
          {rows.map(([label, value]) => (
            <div key={label} className="grid gap-1 px-6 py-4 sm:grid-cols-3">
              <dt className="text-sm font-medium text-muted-foreground">{label}</dt>
              <dd className="text-sm sm:col-span-2">{value}</dd>
            </div>
          ))}
        </dl>
      </Card>
    </>
  );
}
