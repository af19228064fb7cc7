// The signed-in shell: a sidebar with every section, collapsing to a menu below 768 px. On top, the
// owner switcher: the user's own account or one of their organizations (decision 040).
import { LogOut, Menu, X } from "lucide-react";
import { useState } from "react";
import { NavLink, Outlet, useLocation, useNavigate, useOutletContext } from "react-router";
import { toast } from "sonner";
import { billingNotice } from "../../../server/billing/account.ts";
import { downloadAlert } from "../../../server/billing/usage.ts";
import { PastDueBanner } from "../../components/billing/past-due-banner.tsx";
import { UsageBanner } from "../../components/billing/usage-banner.tsx";
import { useFlashToast } from "../../components/dashboard/use-flash-toast.ts";
import {
  accountNav,
  integrationsIcon as IntegrationsIcon,
  integrations,
  mainNav,
  type NavItem,
} from "../../components/layout/dashboard-nav.ts";
import { Logo } from "../../components/logo.tsx";
import { OwnerSwitcher } from "../../components/orgs/owner-switcher.tsx";
import { Button } from "../../components/ui/button.tsx";
import { listOrganizations } from "../../lib/orgs.server.ts";
import { requireOnboardedUser, type SessionUser, services } from "../../lib/session.server.ts";
import { signOut } from "../../lib/sign-out.ts";
import { cn } from "../../lib/utils.ts";
import type { Route } from "./+types/dashboard-layout";

const linkClass = ({ isActive }: { isActive: boolean }) =>
  cn(
    "flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors",
    isActive ? "bg-accent text-primary" : "text-muted-foreground hover:bg-muted hover:text-foreground",
  );

function NavSection({
  title,
  items,
  onNavigate,
}: {
  title?: string;
  items: NavItem[];
  onNavigate: () => void;
}) {
  return (
    <div className="grid gap-1">
      {title ? (
        <p className="px-3 pb-1 text-xs font-semibold uppercase tracking-wide text-muted-foreground">
          {title}
        </p>
      ) : null}
      {items.map(({ to, label, icon: Icon }) => (
        <NavLink key={to} to={to} className={linkClass} onClick={onNavigate} end={to === "/dashboard"}>
          <Icon className="size-4" aria-hidden="true" />
          {label}
        </NavLink>
      ))}
    </div>
  );
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  return {
    // A failed payment shows on every dashboard page (billing pages show it themselves).
    billingNotice: (await billingNotice(database.db, user.id)) ?? null,
    // So does this month's downloads passing 80 % or 100 % of the plan's allowance.
    downloadAlert: (await downloadAlert(database.db, config, user.id)) ?? null,
    // The owner switcher's organizations.
    orgs: (await listOrganizations(database.db, user.id)).map(({ slug, name }) => ({ slug, name })),
  };
}

export default function DashboardLayout({ loaderData }: Route.ComponentProps) {
  const user = useOutletContext<SessionUser>();
  const navigate = useNavigate();
  const location = useLocation();
  const [open, setOpen] = useState(false);
  const close = () => setOpen(false);
  // After leaving or deleting an organization (its pages redirect here).
  useFlashToast("left", (slug) => `You left ${slug}`);
  useFlashToast("orgDeleted", (slug) => `Organization ${slug} deleted`);

  async function onSignOut() {
    if (await signOut()) {
      toast.success("Signed out");
      await navigate("/", { replace: true });
    } else {
      toast.error("Could not sign out. Please try again.");
    }
  }

  const nav = (
    <nav aria-label="Dashboard" className="grid gap-6">
      <OwnerSwitcher username={user.username ?? ""} orgs={loaderData.orgs} onNavigate={close} />
      <NavSection items={mainNav} onNavigate={close} />
      <NavSection title="Account" items={accountNav} onNavigate={close} />
      <NavSection
        title="Integrations"
        items={integrations.map((i) => ({
          to: `/integrations/${i.slug}`,
          label: i.label,
          icon: IntegrationsIcon,
        }))}
        onNavigate={close}
      />
    </nav>
  );

  return (
    <div className="min-h-screen md:grid md:grid-cols-[16rem_1fr]">
      <aside className="hidden border-r border-border bg-muted/30 md:flex md:flex-col">
        <div className="flex h-16 items-center px-5">
          <NavLink to="/dashboard" aria-label="Packyard dashboard">
            <Logo />
          </NavLink>
        </div>
        <div className="flex-1 overflow-y-auto px-3 py-4">{nav}</div>
        <UserBox user={user} onSignOut={onSignOut} />
      </aside>

      <header className="flex h-14 items-center justify-between border-b border-border px-4 md:hidden">
        <NavLink to="/dashboard" aria-label="Packyard dashboard">
          <Logo />
        </NavLink>
        <Button
          variant="ghost"
          size="icon"
          aria-label={open ? "Close menu" : "Open menu"}
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? <X /> : <Menu />}
        </Button>
      </header>
      {open ? (
        <div className="border-b border-border bg-background px-3 py-4 md:hidden">
          {nav}
          <UserBox user={user} onSignOut={onSignOut} />
        </div>
      ) : null}

      <div className="min-w-0">
        <main className="mx-auto w-full max-w-6xl px-4 py-8 sm:px-8">
          {loaderData.billingNotice && !/^\/(billing|subscription)(\/|$)/.test(location.pathname) ? (
            <PastDueBanner plan={loaderData.billingNotice.plan} />
          ) : null}
          <UsageBanner alert={loaderData.downloadAlert} />
          <Outlet context={user} />
        </main>
      </div>
    </div>
  );
}

function UserBox({ user, onSignOut }: { user: SessionUser; onSignOut: () => void }) {
  return (
    <div className="flex items-center justify-between gap-2 border-t border-border px-4 py-3">
      <div className="min-w-0">
        <p className="truncate text-sm font-medium" data-testid="current-user">
          {user.name}
        </p>
        <p className="truncate text-xs text-muted-foreground">@{user.username}</p>
      </div>
      <Button variant="ghost" size="sm" onClick={onSignOut}>
        <LogOut aria-hidden="true" />
        Sign out
      </Button>
    </div>
  );
}
