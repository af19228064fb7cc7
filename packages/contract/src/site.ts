// The public site's navigation: the header's links and the footer's groups. The React app's
// header and footer and the server's own /error page read the same lists.

export interface SiteLink {
  to: string;
  label: string;
}

/** Header links, left to right; sign-in and sign-up (or Dashboard) come after them. */
export const headerLinks: SiteLink[] = [
  { to: "/features", label: "Features" },
  { to: "/pricing", label: "Pricing" },
  { to: "/blog/", label: "Blog" },
  { to: "/compare/github-releases", label: "Compare" },
  { to: "/releases", label: "Releases" },
];

/** The four comparison pages (spec §2), in the order the footer and the tabs list them. */
export const comparePages = [
  { slug: "github-releases", peer: "GitHub Releases" },
  { slug: "gitlab", peer: "GitLab" },
  { slug: "nexus-oss", peer: "Nexus Repository OSS" },
  { slug: "jfrog-artifactory", peer: "JFrog Artifactory" },
] as const;

export type CompareSlug = (typeof comparePages)[number]["slug"];

/** Every public page, grouped as the footer shows them. */
export const footerGroups: { title: string; links: SiteLink[] }[] = [
  {
    title: "Product",
    links: [
      { to: "/", label: "Home" },
      { to: "/features", label: "Features" },
      { to: "/pricing", label: "Pricing" },
      { to: "/releases", label: "Public releases" },
      { to: "/blog/", label: "Blog" },
    ],
  },
  {
    title: "Compare",
    links: comparePages.map(({ slug, peer }) => ({ to: `/compare/${slug}`, label: `vs ${peer}` })),
  },
  {
    title: "Company",
    links: [
      { to: "/contact", label: "Contact" },
      { to: "/legal/terms", label: "Terms of Service" },
      { to: "/legal/privacy", label: "Privacy Policy" },
    ],
  },
];

export const SIGN_IN_PATH = "/auth/signin";
export const SIGN_UP_PATH = "/auth/signin?mode=signup";
