// Every component that may be an island (decision 054): rendered by the server as a React root
// of its own and hydrated in the browser by islands/entry.client.tsx. An island's props travel
// as JSON in the page, and it must not need React Router (links go through lib/site-link.tsx).
// Only the entry imports this module (pages pass the component to <Island>, islands/island.tsx);
// statically, since the one islands page (/) uses all of them: one request.
import type { ComponentProps } from "react";
import { CommandBlock } from "../components/marketing/command-block.tsx";
import { InstallTabs } from "../components/marketing/install-tabs.tsx";
import { SiteHeader } from "../components/marketing/site-header.tsx";

export const islands = {
  "site-header": SiteHeader,
  "command-block": CommandBlock,
  "install-tabs": InstallTabs,
};

export type Islands = typeof islands;
export type IslandName = keyof Islands;
export type IslandProps<N extends IslandName> = ComponentProps<Islands[N]>;

export function isIslandName(name: string | undefined): name is IslandName {
  return name !== undefined && Object.hasOwn(islands, name);
}
