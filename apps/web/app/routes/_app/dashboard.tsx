// /dashboard: the publisher's overview.
import { FolderPlus } from "lucide-react";
import { useEffect } from "react";
import { Link, useOutletContext, useSearchParams } from "react-router";
import { toast } from "sonner";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card } from "../../components/ui/card.tsx";
import { formatCompactCount, formatFileSize } from "../../lib/format.ts";
import { pageMeta } from "../../lib/meta.ts";
import { parseAnnual, parsePlan, plans } from "../../lib/plans.ts";
import type { SessionUser } from "../../lib/session.server.ts";
import type { Route } from "./+types/dashboard";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Dashboard",
    noindex: true,
  });

export default function Dashboard() {
  const user = useOutletContext<SessionUser>();
  const [search, setSearch] = useSearchParams();
  const plan = parsePlan(search.get("plan"));
  const annual = parseAnnual(search.get("annual"));

  useEffect(() => {
    if (search.get("welcome") !== "1") return;
    toast.success(`Welcome to Packyard, ${user.name}!`);
    const next = new URLSearchParams(search);
    next.delete("welcome");
    setSearch(next, { replace: true });
  }, [search, setSearch, user.name]);

  const stats = [
    { label: "Projects", value: formatCompactCount(0) },
    { label: "Releases", value: formatCompactCount(0) },
    { label: "Downloads", value: formatCompactCount(0) },
    { label: "Storage used", value: formatFileSize(0) },
  ];

  return (
    <>
      <PageHeader
        title={`Hello, ${user.name}`}
        description="Your projects, releases and downloads at a glance."
      />
      {plan && plan !== "basic" ? (
        <Alert className="mb-6" data-testid="chosen-plan">
          You chose the {plans[plan].name} plan{annual ? ", billed annually" : ""}.{" "}
          <Link
            className="font-medium text-primary hover:underline"
            to={`/billing?plan=${plan}&annual=${annual ? "true" : "false"}`}
          >
            Review it in Billing
          </Link>
          .
        </Alert>
      ) : null}
      <dl className="mb-8 grid grid-cols-2 gap-4 lg:grid-cols-4">
        {stats.map((s) => (
          <Card key={s.label} className="p-5">
            <dt className="text-sm text-muted-foreground">{s.label}</dt>
            <dd className="mt-1 text-2xl font-semibold tabular-nums">{s.value}</dd>
          </Card>
        ))}
      </dl>
      <EmptyState
        icon={FolderPlus}
        title="No projects yet"
        action={
          <Button asChild>
            <Link to="/projects">Go to projects</Link>
          </Button>
        }
      >
        A project holds your releases and gets its own signed APT and YUM repository. Once you publish, your
        most recent releases show up here.
      </EmptyState>
    </>
  );
}
