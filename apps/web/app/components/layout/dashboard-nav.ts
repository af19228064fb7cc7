// Every signed-in section of spec §2, in sidebar order.
import {
  BookOpen,
  CreditCard,
  FolderGit2,
  KeyRound,
  LayoutDashboard,
  type LucideIcon,
  ScrollText,
  Settings,
  Sparkles,
  User,
} from "lucide-react";

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
}

export const mainNav: NavItem[] = [
  { to: "/dashboard", label: "Dashboard", icon: LayoutDashboard },
  { to: "/projects", label: "Projects", icon: FolderGit2 },
  { to: "/api-keys", label: "API keys", icon: KeyRound },
];

export const accountNav: NavItem[] = [
  { to: "/subscription", label: "Subscription", icon: Sparkles },
  { to: "/billing", label: "Billing", icon: CreditCard },
  { to: "/profile", label: "Profile", icon: User },
  { to: "/settings", label: "Settings", icon: Settings },
  { to: "/audit", label: "Audit log", icon: ScrollText },
];

export const integrations = [
  { slug: "nexus", label: "Nexus Repository" },
  { slug: "artifactory", label: "JFrog Artifactory" },
  { slug: "gitlab", label: "GitLab" },
  { slug: "github-releases", label: "GitHub Releases" },
] as const;

export const integrationsIcon = BookOpen;
