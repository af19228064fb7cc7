import { index, layout, type RouteConfig, route } from "@react-router/dev/routes";

// Every page sits below the frame, whose error boundary takes the pages' errors (decision 062).
const pages = [
  layout("routes/_marketing/layout.tsx", [
    index("routes/_marketing/home.tsx"),
    route("pricing", "routes/_marketing/pricing.tsx"),
    // The blog: /blog/ (and /blog), a post, and its Atom feed.
    route("blog", "routes/_marketing/blog/index.tsx"),
    route("blog/feed.xml", "routes/_marketing/blog/feed.ts"),
    route("blog/:slug", "routes/_marketing/blog/post.tsx"),
    route("features", "routes/_marketing/features.tsx"),
    route("contact", "routes/_marketing/contact.tsx"),
    route("compare", "routes/_marketing/compare/index.tsx"),
    route("compare/github-releases", "routes/_marketing/compare/github-releases.tsx"),
    route("compare/gitlab", "routes/_marketing/compare/gitlab.tsx"),
    route("compare/nexus-oss", "routes/_marketing/compare/nexus-oss.tsx"),
    route("compare/jfrog-artifactory", "routes/_marketing/compare/jfrog-artifactory.tsx"),
    route("legal/terms", "routes/_marketing/legal/terms.tsx"),
    route("legal/privacy", "routes/_marketing/legal/privacy.tsx"),
  ]),

  route("auth/signin", "routes/auth/signin.tsx"),
  route("auth/forgot-password", "routes/auth/forgot-password.tsx"),
  route("auth/reset-password", "routes/auth/reset-password.tsx"),
  route("auth/generate-token", "routes/auth/generate-token.tsx"),
  route("auth/two-factor", "routes/auth/two-factor.tsx"),
  route("auth/delete-account", "routes/auth/delete-account.tsx"),

  // An invitation to an organization, from the link in its mail: signed in or not.
  route("invitations/:invitationId", "routes/invitation.tsx"),

  // Public release pages.
  layout("routes/releases/layout.tsx", [
    route("releases", "routes/releases/index.tsx"),
    route("releases/:username/:projectSlug", "routes/releases/project.tsx"),
    route("releases/:username/:projectSlug/:releaseVersion", "routes/releases/release.tsx"),
  ]),

  // The guarded parent: every signed-in route of spec §2 sits below it.
  layout("routes/_app/layout.tsx", [
    route("onboarding", "routes/_app/onboarding.tsx"),
    layout("routes/_app/dashboard-layout.tsx", [
      route("dashboard", "routes/_app/dashboard.tsx"),
      route("projects", "routes/_app/projects.tsx"),
      route("projects/:projectSlug", "routes/_app/project.tsx"),
      route("projects/:projectSlug/settings", "routes/_app/project-settings.tsx"),
      route("projects/:projectSlug/webhooks", "routes/_app/project-webhooks.tsx"),
      route("projects/:projectSlug/entitlements", "routes/_app/project-entitlements.tsx"),
      route("projects/:projectSlug/entitlements/:entitlementId", "routes/_app/project-entitlement.tsx"),
      route("projects/:projectSlug/publishing", "routes/_app/project-publishing.tsx"),
      route("projects/:projectSlug/images", "routes/_app/project-images.tsx"),
      route("projects/:projectSlug/libraries", "routes/_app/project-libraries.tsx"),
      route("projects/:projectSlug/downloads", "routes/_app/project-downloads.tsx"),
      route("projects/:projectSlug/releases", "routes/_app/project-releases.tsx"),
      route("projects/:projectSlug/releases/:releaseVersion", "routes/_app/project-release.tsx"),
      route("projects/:projectSlug/audit", "routes/_app/project-audit.tsx"),
      // Organizations (decision 040), and their projects' pages: the same modules as above.
      route("orgs/new", "routes/_app/org-new.tsx"),
      route("orgs/:orgSlug", "routes/_app/org.tsx"),
      route("orgs/:orgSlug/members", "routes/_app/org-members.tsx"),
      route("orgs/:orgSlug/settings", "routes/_app/org-settings.tsx"),
      route("orgs/:orgSlug/audit", "routes/_app/org-audit.tsx"),
      route("orgs/:orgSlug/entitlements", "routes/_app/org-entitlements.tsx"),
      route("orgs/:orgSlug/entitlements/:entitlementId", "routes/_app/org-entitlement.tsx"),
      ...(
        [
          ["", "project"],
          ["/settings", "project-settings"],
          ["/webhooks", "project-webhooks"],
          ["/entitlements", "project-entitlements"],
          ["/entitlements/:entitlementId", "project-entitlement"],
          ["/publishing", "project-publishing"],
          ["/images", "project-images"],
          ["/libraries", "project-libraries"],
          ["/downloads", "project-downloads"],
          ["/releases", "project-releases"],
          ["/releases/:releaseVersion", "project-release"],
          ["/audit", "project-audit"],
        ] as const
      ).map(([path, file]) =>
        route(`orgs/:orgSlug/projects/:projectSlug${path}`, `routes/_app/${file}.tsx`, {
          id: `routes/_app/org-${file}`,
        }),
      ),
      route("api-keys", "routes/_app/api-keys.tsx"),
      route("audit", "routes/_app/audit.tsx"),
      route("subscription", "routes/_app/subscription.tsx"),
      route("billing", "routes/_app/billing.tsx"),
      route("billing/success", "routes/_app/billing-success.tsx"),
      route("billing/cancel", "routes/_app/billing-cancel.tsx"),
      route("profile", "routes/_app/profile.tsx"),
      route("settings", "routes/_app/settings.tsx"),
      route("integrations/:integration", "routes/_app/integration.tsx"),
    ]),
  ]),

  // Resource routes for crawlers (SEO).
  route("sitemap.xml", "routes/resources/sitemap.ts"),
  route("robots.txt", "routes/resources/robots.ts"),

  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;

export default [layout("routes/frame.tsx", pages)] satisfies RouteConfig;
