// An island (decision 054): a part of a page that is interactive on a page that is otherwise
// server-rendered HTML. While the server renders an islands document (root.tsx), the island is
// rendered as a React root of its own into a wrapper that names it and carries its props, which
// islands/entry.client.tsx hydrates: the same root on both sides, so even useId's ids agree.
// Everywhere else (every page React Router hydrates, and client-side navigations) it is the plain
// component, with no wrapper. The component is passed in, not looked up, so a page imports only
// the islands it uses; the name is checked against the registry the entry hydrates from.
import { type ComponentType, useContext, useEffect } from "react";
import { IslandRendererContext } from "./context.ts";
import type { IslandName, IslandProps, Islands } from "./registry.ts";

/** The island's root, the same on the server and in the browser; `onHydrated` only there. */
export function IslandRoot<P extends object>({
  component: Component,
  props,
  onHydrated,
}: {
  component: ComponentType<P>;
  props: P;
  onHydrated?: () => void;
}) {
  useEffect(() => onHydrated?.(), [onHydrated]);
  return <Component {...props} />;
}

export function Island<N extends IslandName>({
  name,
  component,
  props,
}: {
  name: N;
  component: Islands[N];
  props: IslandProps<N>;
}) {
  const render = useContext(IslandRendererContext);
  // Each name's component takes that name's props; TypeScript cannot follow it through N.
  const Component = component as ComponentType<object>;
  if (!render) return <Component {...props} />;
  // `contents`: the wrapper makes no box, so the island lays out as if it were not there.
  return (
    <div
      className="contents"
      data-island={name}
      data-props={JSON.stringify(props)}
      dangerouslySetInnerHTML={{ __html: render(<IslandRoot component={Component} props={props} />) }}
    />
  );
}
