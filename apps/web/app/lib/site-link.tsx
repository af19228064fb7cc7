// A link that works both inside the React Router app and in an island (islands/island.tsx), which
// is hydrated as a React root of its own with no router around it. Inside the app, root.tsx
// provides React Router's <Link> (client-side navigation); elsewhere it is a plain <a>, and
// following it loads the next page as a document.
import { type AnchorHTMLAttributes, type ComponentType, createContext, useContext } from "react";

export type SiteLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { to: string };

const LinkComponent = createContext<ComponentType<SiteLinkProps> | null>(null);

/** Set by the app's root: how a SiteLink below it navigates. */
export const SiteLinkProvider = LinkComponent.Provider;

export function SiteLink({ to, ...props }: SiteLinkProps) {
  const Component = useContext(LinkComponent);
  if (Component) return <Component to={to} {...props} />;
  return <a href={to} {...props} />;
}
